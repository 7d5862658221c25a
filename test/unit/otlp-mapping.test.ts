// The OTLP mapping, pure: export requests read into spans (protobuf-shaped and JSON-shaped trees),
// the GenAI semantic conventions (current names and the older ones) read into episodes, steps and
// outcomes, as docs/OTLP.md's table states.
import { describe, expect, it } from 'vitest';
import { validateEpisodeInput } from '../../src/episodes/limits.ts';
import { decodeRequest, encodeResponse, formatOf, inflate } from '../../src/otlp/codec.ts';
import { firstUserMessage, operationOf, usageOf } from '../../src/otlp/genai.ts';
import { cutBytes, episodeOfRoot, outcomeOfRoot, stepOfSpan } from '../../src/otlp/mapping.ts';
import { outputMessages } from '../../src/otlp/messages.ts';
import { type Attributes, byStart, MalformedRequestError, spansOf } from '../../src/otlp/spans.ts';
import { validateStep } from '../../src/steps/limits.ts';
import { otlpSpan, SPAN_TRACE_ID } from '../support/otlp-span.ts';

const TRACE = SPAN_TRACE_ID;

const span = otlpSpan;

const kv = (key: string, value: object) => ({ key, value });

describe('reading an export request', () => {
  it('reads OTLP/JSON: hex ids, string nanos, every AnyValue kind, resource attributes', () => {
    const { spans, unreadable, total } = spansOf({
      resourceSpans: [
        {
          resource: { attributes: [kv('service.name', { stringValue: 'svc' })] },
          scopeSpans: [
            {
              spans: [
                {
                  traceId: TRACE.toUpperCase(),
                  spanId: 'EEE19B7EC3C1B174',
                  parentSpanId: '',
                  name: 'invoke_agent',
                  startTimeUnixNano: '1700000000123456789',
                  endTimeUnixNano: 1700000001000000000,
                  status: { code: 2, message: 'boom' },
                  attributes: [
                    kv('s', { stringValue: 'x' }),
                    kv('i', { intValue: '42' }),
                    kv('d', { doubleValue: 0.5 }),
                    kv('b', { boolValue: true }),
                    kv('a', { arrayValue: { values: [{ stringValue: 'p' }, { intValue: 1 }] } }),
                    kv('m', { kvlistValue: { values: [kv('k', { stringValue: 'v' })] } }),
                  ],
                  events: [{ name: 'gen_ai.content.prompt', attributes: [kv('gen_ai.prompt', { stringValue: 'hi' })] }],
                },
              ],
            },
          ],
        },
      ],
    });
    expect(total).toBe(1);
    expect(unreadable).toEqual([]);
    expect(spans[0]).toEqual({
      traceId: TRACE,
      spanId: 'eee19b7ec3c1b174',
      parentSpanId: null,
      name: 'invoke_agent',
      startMs: 1_700_000_000_123,
      endMs: 1_700_000_001_000,
      startUs: 1_700_000_000_123_456,
      attributes: { s: 'x', i: 42, d: 0.5, b: true, a: ['p', 1], m: { k: 'v' } },
      status: { code: 2, message: 'boom' },
      events: [{ name: 'gen_ai.content.prompt', attributes: { 'gen_ai.prompt': 'hi' } }],
      resource: { 'service.name': 'svc' },
    });
  });

  it('orders spans that start in the same millisecond by their microseconds, then by span id, whatever the arrival order', () => {
    const at = (spanId: string, startUs: number) => span({}, { spanId, startMs: Math.floor(startUs / 1_000), startUs });
    const tool = at('0000000000000009', 1_700_000_000_000_400);
    const nextCall = at('0000000000000001', 1_700_000_000_000_900);
    const twin = at('0000000000000002', 1_700_000_000_000_900);
    expect([nextCall, twin, tool].sort(byStart)).toEqual([tool, nextCall, twin]);
    expect([twin, tool, nextCall].sort(byStart)).toEqual([tool, nextCall, twin]);
  });

  it('reads bytes ids (protobuf), a remote parent as no parent, and reports unreadable spans by position', () => {
    const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex, 'hex'));
    const { spans, unreadable } = spansOf({
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                { traceId: bytes(TRACE), spanId: bytes('0102030405060708'), parentSpanId: bytes('0807060504030201'), startTimeUnixNano: 5_000_000 },
                { traceId: bytes('00'.repeat(16)), spanId: bytes('0102030405060708') },
                { traceId: bytes(TRACE), spanId: bytes('0102') },
                { traceId: bytes(TRACE), spanId: bytes('0102030405060709'), parentSpanId: bytes('0807060504030201'), flags: 0x301 },
              ],
            },
          ],
        },
      ],
    });
    // The last span's flags say its parent is remote (in another process): it roots the run here.
    expect(spans.map((s) => [s.spanId, s.parentSpanId, s.startMs])).toEqual([
      ['0102030405060708', '0807060504030201', 5],
      ['0102030405060709', null, 0],
    ]);
    expect(unreadable.map((u) => u.index)).toEqual([1, 2]);
    expect(unreadable[0]?.reason).toMatch(/traceId must be 16 bytes, not all zero/);
    expect(unreadable[1]?.reason).toMatch(/spanId must be 8 bytes/);
  });

  it('refuses what is no export request at all', () => {
    expect(() => spansOf(7)).toThrow(MalformedRequestError);
    expect(() => spansOf({ resourceSpans: 'x' })).toThrow(MalformedRequestError);
    expect(() => decodeRequest(Buffer.from('{'), 'json')).toThrow(MalformedRequestError);
    expect(() => inflate(Buffer.from('x'), 'br', 100)).toThrow(/not supported/);
    // docs/OTLP.md: a body without resourceSpans is no export request (400); an empty list is one.
    expect(() => spansOf({})).toThrow(/no resourceSpans list/);
    expect(spansOf({ resourceSpans: [] }).total).toBe(0);
  });

  it('knows the OTLP/HTTP content types, and answers partial success in the request format', () => {
    expect(formatOf('application/x-protobuf')).toBe('protobuf');
    expect(formatOf('application/json; charset=utf-8')).toBe('json');
    expect(formatOf('text/plain')).toBeNull();
    expect(JSON.parse(encodeResponse('json', { rejectedSpans: 2, errorMessage: 'why' }).toString())).toEqual({
      partialSuccess: { rejectedSpans: 2, errorMessage: 'why' },
    });
    expect(encodeResponse('protobuf', null).length).toBe(0);
  });
});

describe('GenAI semantic conventions', () => {
  it('tells the operation from gen_ai.operation.name, and from older attributes without it', () => {
    expect(operationOf(span({ 'gen_ai.operation.name': 'invoke_agent' }))).toBe('invoke_agent');
    expect(operationOf(span({ 'gen_ai.operation.name': 'execute_tool' }))).toBe('execute_tool');
    for (const op of ['chat', 'text_completion', 'generate_content', 'embeddings'])
      expect(operationOf(span({ 'gen_ai.operation.name': op }))).toBe('model_call');
    expect(operationOf(span({ 'gen_ai.system': 'openai' }))).toBe('model_call');
    expect(operationOf(span({ 'openinference.span.kind': 'TOOL' }))).toBe('execute_tool');
    expect(operationOf(span({ 'http.method': 'GET' }))).toBe('other');
  });

  it('reads the first user message from current, older and indexed attributes', () => {
    const current = [
      { role: 'system', parts: [{ type: 'text', content: 'be brief' }] },
      { role: 'user', parts: [{ type: 'text', content: 'Fix the login bug' }] },
    ];
    expect(firstUserMessage(span({ 'gen_ai.input.messages': JSON.stringify(current) }))).toBe('Fix the login bug');
    expect(firstUserMessage(span({ 'gen_ai.prompt': JSON.stringify([{ role: 'user', content: 'old style' }]) }))).toBe('old style');
    expect(
      firstUserMessage(
        span({
          'gen_ai.prompt.0.role': 'system',
          'gen_ai.prompt.0.content': 'sys',
          'gen_ai.prompt.1.role': 'user',
          'gen_ai.prompt.1.content': 'indexed',
        }),
      ),
    ).toBe('indexed');
    expect(firstUserMessage(span({ 'gen_ai.prompt': 'plain text prompt' }))).toBe('plain text prompt');
    const answer = (a: Attributes) => outputMessages(span(a), a).map((m) => m.text);
    expect(answer({ 'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'done' }] }]) })).toEqual(['done']);
    expect(answer({ 'gen_ai.completion.0.content': 'older answer' })).toEqual(['older answer']);
  });

  it('adds input and output tokens under the current or the older names', () => {
    expect(usageOf({ 'gen_ai.usage.input_tokens': 10, 'gen_ai.usage.output_tokens': 5, 'gen_ai.request.model': 'm' })).toMatchObject({
      tokens: 15,
      model: 'm',
    });
    expect(usageOf({ 'gen_ai.usage.prompt_tokens': 7, 'gen_ai.usage.completion_tokens': 3 }).tokens).toBe(10);
    expect(usageOf({ 'llm.usage.total_tokens': 99 }).tokens).toBe(99);
    expect(usageOf({}).tokens).toBeNull();
  });
});

describe('spans as episodes and steps', () => {
  it('a root invoke_agent span is a historical episode: task, agent, context from the resource, dedupe key of the trace', () => {
    const root = span(
      { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'fixer', 'gen_ai.agent.description': 'Fixes bugs' },
      { parentSpanId: null },
    );
    const input = episodeOfRoot(root, []);
    expect(input).toMatchObject({
      taskDescription: 'Fixes bugs',
      agent: 'fixer',
      dedupeKey: `otlp:${TRACE}`,
      context: { domain: 'shop-agent', tags: ['otlp'] },
      startedAt: new Date(root.startMs),
    });
    expect(validateEpisodeInput(input)).toEqual([]);
    const child = span({ 'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'from a child' }] }]) });
    expect(episodeOfRoot(span({}, { parentSpanId: null, name: 'root' }), [child]).taskDescription).toBe('from a child');
    expect(episodeOfRoot(span({}, { parentSpanId: null, name: 'root' }), []).taskDescription).toBe('root');
  });

  it('an execute_tool span is a tool call with arguments and result; status ERROR is an error with its message', () => {
    const ok = stepOfSpan(
      span({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'grep',
        'gen_ai.tool.call.arguments': '{"q":"x"}',
        'gen_ai.tool.call.result': 'found',
      }),
    );
    expect(ok).toMatchObject({ kind: 'tool_call', tool: 'grep', parameters: { q: 'x' }, result: { kind: 'success', output: 'found' }, latencyMs: 250 });
    expect(ok.sideEffectKey).toBe('otlp:eee19b7ec3c1b174');
    expect(validateStep(ok, 0)).toEqual([]);
    const failed = stepOfSpan(
      span({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'sh', 'error.type': 'Timeout' }, { status: { code: 2, message: 'took too long' } }),
    );
    expect(failed.result).toEqual({ kind: 'error', message: 'took too long', errorClass: 'Timeout' });
  });

  it('a model call is an llm_call with tokens, model and cost', () => {
    const step = stepOfSpan(
      span({
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-x',
        'gen_ai.usage.input_tokens': 3,
        'gen_ai.usage.output_tokens': 4,
        'gen_ai.usage.cost': 0.01,
      }),
    );
    expect(step).toMatchObject({ kind: 'llm_call', tool: null, tokens: 7, cost: 0.01, parameters: { model: 'gpt-x' }, metadata: { model: 'gpt-x' } });
    expect(step.action).toBe('gpt-x (no answer)');
  });

  it('the outcome: episodic.outcome first, then an agent span status; otherwise unknown', () => {
    const root = (attributes: Attributes, code: number, message = '') => span(attributes, { parentSpanId: null, status: { code, message } });
    const agent = { 'gen_ai.operation.name': 'invoke_agent' };
    expect(outcomeOfRoot(root(agent, 1)).kind).toBe('success');
    expect(outcomeOfRoot(root({}, 2, 'crashed'))).toMatchObject({ kind: 'failure', reason: 'crashed' });
    expect(outcomeOfRoot(root(agent, 0)).kind).toBe('unknown');
    // An OK model call is not a solved task.
    expect(outcomeOfRoot(root({ 'gen_ai.operation.name': 'chat' }, 1)).kind).toBe('unknown');
    expect(outcomeOfRoot(root({ 'openinference.span.kind': 'LLM' }, 1)).kind).toBe('unknown');
    expect(outcomeOfRoot(root({ 'episodic.outcome': 'partial' }, 1)).kind).toBe('partial');
    expect(outcomeOfRoot(root({ 'episodic.outcome': 'failure' }, 1)).kind).toBe('failure');
    expect(outcomeOfRoot(root({ 'episodic.outcome': 'success', 'episodic.artifacts': ['a.ts'] }, 2))).toMatchObject({ kind: 'success', artifacts: ['a.ts'] });
  });

  it('cuts long text to its byte limit without splitting a character', () => {
    expect(cutBytes('héllo', 100)).toBe('héllo');
    const cut = cutBytes('é'.repeat(100), 11);
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(11);
    expect(cut.endsWith('…')).toBe(true);
  });
});
