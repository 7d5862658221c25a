// The model price table and the cost of an OTLP model call, pure: a model's entry by its name or by
// the longest entry its dated name extends, MODEL_PRICES over the defaults, the span's own cost
// first, and an unknown model's cost unknown (not 0); the session a run belongs to.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { costOf, DEFAULT_MODEL_PRICES, priceOf, priceTable } from '../../src/costs/prices.ts';
import { episodeOfRoot, sessionOf, stepOfSpan } from '../../src/otlp/mapping.ts';
import type { Attributes, OtlpSpan } from '../../src/otlp/spans.ts';
import { otlpSpan } from '../support/otlp-span.ts';

const span = (attributes: Attributes, extra: Partial<OtlpSpan> = {}) => otlpSpan(attributes, { name: 'chat', ...extra });

const table = priceTable();

describe('the price table', () => {
  it('finds a dated model by the longest entry it extends, a provider prefix dropped, case ignored', () => {
    expect(priceOf('gpt-4o-mini-2024-07-18', table)).toEqual(DEFAULT_MODEL_PRICES['gpt-4o-mini']);
    expect(priceOf('gpt-4o-2024-08-06', table)).toEqual(DEFAULT_MODEL_PRICES['gpt-4o']);
    expect(priceOf('openai/GPT-4.1-mini', table)).toEqual(DEFAULT_MODEL_PRICES['gpt-4.1-mini']);
    expect(priceOf('claude-sonnet-4-20250514', table)).toEqual(DEFAULT_MODEL_PRICES['claude-sonnet-4']);
  });

  it('knows no model it has no entry for, nor one that only shares a prefix', () => {
    expect(priceOf('my-local-llama', table)).toBeNull();
    expect(priceOf('gpt-4omni', table)).toBeNull();
    expect(priceOf(null, table)).toBeNull();
  });

  it('prices input and output tokens per million; a total alone is not priced', () => {
    expect(costOf({ inputTokens: 1_000_000, outputTokens: 500_000 }, { input: 0.15, output: 0.6 })).toBeCloseTo(0.45, 10);
    expect(costOf({ inputTokens: null, outputTokens: null }, { input: 1, output: 1 })).toBeNull();
  });

  it('MODEL_PRICES adds entries and replaces defaults; a malformed one names the variable', () => {
    const config = loadConfig({ MODEL_PRICES: '{"my-local-llama": {"input": 0, "output": 0}, "gpt-4o": {"input": 1, "output": 2}}' });
    const mine = priceTable(config.modelPrices);
    expect(priceOf('my-local-llama', mine)).toEqual({ input: 0, output: 0 });
    expect(priceOf('gpt-4o', mine)).toEqual({ input: 1, output: 2 });
    expect(priceOf('gpt-4o-mini', mine)).toEqual(DEFAULT_MODEL_PRICES['gpt-4o-mini']);
    for (const bad of ['not json', '{"gpt-4o": {"input": -1, "output": 1}}', '{"gpt-4o": {"input": 1}}']) {
      expect(() => loadConfig({ MODEL_PRICES: bad })).toThrow(ConfigError);
      expect(() => loadConfig({ MODEL_PRICES: bad })).toThrow(/MODEL_PRICES/);
    }
  });
});

describe('the cost of a model call', () => {
  const call = (model: string, extra: Attributes = {}) =>
    span({ 'gen_ai.operation.name': 'chat', 'gen_ai.response.model': model, 'gen_ai.usage.input_tokens': 1200, 'gen_ai.usage.output_tokens': 30, ...extra });

  it('is its tokens at the model price when the span carries none', () => {
    const step = stepOfSpan(call('gpt-4o-mini-2024-07-18'), table);
    expect(step.cost).toBeCloseTo((1200 * 0.15 + 30 * 0.6) / 1e6, 12);
    expect(step.metadata).toMatchObject({ costSource: 'price_table', model: 'gpt-4o-mini-2024-07-18', inputTokens: 1200, outputTokens: 30 });
  });

  it("is the span's own when it carries one", () => {
    const step = stepOfSpan(call('gpt-4o-mini', { 'gen_ai.usage.cost': 0.5 }), table);
    expect(step.cost).toBe(0.5);
    expect(step.metadata).toMatchObject({ costSource: 'span' });
  });

  it('is unknown, not 0, for a model the table does not know (and without a table)', () => {
    for (const step of [stepOfSpan(call('my-local-llama'), table), stepOfSpan(call('gpt-4o-mini'))]) {
      expect(step.cost).toBeUndefined();
      expect(step.metadata).toMatchObject({ costSource: 'unknown' });
    }
  });

  it('is not asked of a tool call', () => {
    const tool = stepOfSpan(span({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'bash' }), table);
    expect(tool.cost).toBeUndefined();
    expect(tool.metadata).not.toHaveProperty('costSource');
  });
});

describe('the session of a run', () => {
  it("is session.id (span, else resource), else OpenLLMetry's or the AI SDK's, else the conversation id", () => {
    expect(sessionOf(span({ 'session.id': 's-1', 'gen_ai.conversation.id': 'c-1' }))).toBe('s-1');
    expect(sessionOf(span({}, { resource: { 'service.name': 'x', 'session.id': 's-2' } }))).toBe('s-2');
    expect(sessionOf(span({ 'traceloop.association.properties.session_id': 's-3' }))).toBe('s-3');
    expect(sessionOf(span({ 'ai.telemetry.metadata.sessionId': 's-4' }))).toBe('s-4');
    expect(sessionOf(span({ 'gen_ai.conversation.id': 'c-1' }))).toBe('c-1');
    expect(sessionOf(span({}))).toBeNull();
  });

  it("is the root's, else that of a span of its trace (the instrumentation's calls carry it, the user's root does not)", () => {
    const root = span({ 'gen_ai.operation.name': 'invoke_agent' }, { parentSpanId: null, name: 'invoke_agent coder' });
    expect(episodeOfRoot(root, []).metadata).not.toHaveProperty('sessionId');
    expect(episodeOfRoot(root, [span({ 'session.id': 'chat-7' })]).metadata).toMatchObject({ sessionId: 'chat-7' });
  });
});
