// A trace as an episode: its root span starts and ends the episode, every other span is a step.
// The table of docs/OTLP.md states this mapping; change both together. Pure.

import { costOf, type PriceTable, priceOf } from '../costs/prices.ts';
import { EPISODE_LIMITS, type StartEpisodeInput } from '../episodes/limits.ts';
import type { Outcome } from '../episodes/outcome.ts';
import { STEP_LIMITS, type StepInput } from '../steps/limits.ts';
import type { JsonObject, JsonValue } from '../validation/json.ts';
import { allAttributes, count, first, firstUserMessage, operationOf, text, toolCallOf, usageOf } from './genai.ts';
import { inputMessages, outputMessages } from './messages.ts';
import { type Attributes, type AttrValue, byStart, type OtlpSpan, STATUS_ERROR, STATUS_OK } from './spans.ts';
import { answerOf, chosenToolCalls, modelAction, toolAction, transcriptOf } from './step-content.ts';

/** The attribute on the root span that states the run's outcome: success, partial or failure. */
const OUTCOME_ATTRIBUTE = 'episodic.outcome';

export const dedupeKeyOfTrace = (traceId: string) => `otlp:${traceId}`;
export const sideEffectKeyOfSpan = (spanId: string) => `otlp:${spanId}`;

/** The text cut to at most `maxBytes` UTF-8 bytes (a cut character is dropped whole). */
export function cutBytes(value: string, maxBytes: number): string {
  const bytes = Buffer.from(value, 'utf8');
  if (bytes.length <= maxBytes) return value;
  return bytes
    .subarray(0, maxBytes - 3)
    .toString('utf8')
    .replace(/\uFFFD$/, '')
    .concat('…');
}

/** An identifier-shaped context field: trimmed, without control characters, at most `maxChars`. */
function label(value: string | null, maxChars: number): string | null {
  const clean = value?.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  return clean ? clean.slice(0, maxChars) : null;
}

const stringList = (v: AttrValue | undefined): string[] => (Array.isArray(v) ? v.flatMap((x) => (typeof x === 'string' && x.trim() ? [x] : [])) : []);

/** The task: the root's first user message, else its agent description, else the first user message of the trace, else its name. */
function taskOf(root: OtlpSpan, trace: readonly OtlpSpan[]): string {
  const a = allAttributes(root);
  const fromTrace = () => {
    for (const span of [...trace].sort(byStart)) {
      const message = firstUserMessage(span);
      if (message) return message;
    }
    return null;
  };
  const task = first(firstUserMessage(root, a), text(a['gen_ai.agent.description']), fromTrace(), root.name.trim() || null, 'OTLP trace');
  return cutBytes(task ?? 'OTLP trace', EPISODE_LIMITS.descriptionBytes);
}

/**
 * The session a run belongs to (the monitor's and the API's episodes filter sessionId): OpenInference's,
 * Langfuse's and Phoenix's session.id, OpenLLMetry's association property, the AI SDK's telemetry
 * metadata, else the GenAI conversation id; on the span, else its resource. A run's session is its
 * root's, else the first of its other spans that has one.
 */
export function sessionOf(span: OtlpSpan): string | null {
  for (const name of ['session.id', 'traceloop.association.properties.session_id', 'ai.telemetry.metadata.sessionId', 'gen_ai.conversation.id']) {
    const value = label(text(span.attributes[name]) ?? text(span.resource[name]), 200);
    if (value) return value;
  }
  return null;
}

/** The episode a trace's root span starts. `trace`: the trace's other spans known so far. */
export function episodeOfRoot(root: OtlpSpan, trace: readonly OtlpSpan[]): StartEpisodeInput {
  const a = root.attributes;
  const r = root.resource;
  const service = text(r['service.name']);
  // An instrumentation library sets the session on its own spans (OpenInference's setSession), not on the user's root.
  const session = first(sessionOf(root), ...trace.map(sessionOf));
  const tags = ['otlp', ...stringList(a['episodic.tags'])].map((t) => label(t, EPISODE_LIMITS.tagChars)).filter((t): t is string => t !== null);
  const metadata: JsonObject = {
    traceId: root.traceId,
    rootSpanId: root.spanId,
    ...(service ? { serviceName: service } : {}),
    ...(text(a['gen_ai.agent.id']) ? { agentId: text(a['gen_ai.agent.id']) } : {}),
    ...(text(a['gen_ai.conversation.id']) ? { conversationId: text(a['gen_ai.conversation.id']) } : {}),
    ...(session ? { sessionId: session } : {}),
  };
  return {
    taskDescription: taskOf(root, trace),
    taskType: label(text(a['episodic.task_type']), EPISODE_LIMITS.taskTypeChars) ?? 'agent_run',
    agent: label(first(text(a['gen_ai.agent.name']), service), EPISODE_LIMITS.agentChars),
    context: {
      complexity: 'moderate',
      domain: label(first(text(a['episodic.domain']), service), EPISODE_LIMITS.contextFieldChars),
      language: label(text(a['episodic.language']), EPISODE_LIMITS.contextFieldChars),
      framework: label(first(text(a['episodic.framework']), text(a['gen_ai.provider.name']), text(a['gen_ai.system'])), EPISODE_LIMITS.contextFieldChars),
      tags: [...new Set(tags)].slice(0, EPISODE_LIMITS.tagCount),
    },
    dedupeKey: dedupeKeyOfTrace(root.traceId),
    mode: 'live',
    budget: {},
    onBudgetExhausted: 'fail',
    metadata,
    startedAt: new Date(root.startMs),
  };
}

const KIND_BY_OPERATION = { invoke_agent: 'agent_call', execute_tool: 'tool_call', model_call: 'llm_call', other: 'observation' } as const;

function errorOf(span: OtlpSpan): StepInput['result'] {
  const errorType = text(span.attributes['error.type']);
  if (span.status.code !== STATUS_ERROR && !errorType) return null;
  const message = first(span.status.message.trim() || null, errorType, 'the span ended with status ERROR') ?? '';
  return { kind: 'error', message: cutBytes(message, STEP_LIMITS.errorMessageBytes), errorClass: label(errorType, STEP_LIMITS.errorClassChars) };
}

/** A tool call's arguments as its parameters. */
function toolParameters(args: AttrValue | undefined): JsonValue | undefined {
  if (args === undefined || args === null) return undefined;
  return typeof args === 'object' ? (args as JsonValue) : { arguments: args };
}

/** A model call's parameters: the model asked for, its temperature. */
function modelParameters(a: Attributes, model: string | null): JsonValue | undefined {
  const asked = first(text(a['gen_ai.request.model']), text(a['ai.model.id']), model);
  const temperature = count(a['gen_ai.request.temperature']);
  return asked ? { model: asked, ...(temperature != null ? { temperature } : {}) } : undefined;
}

interface StepContent {
  tool: string | null;
  action: string;
  parameters: JsonValue | undefined;
  /** result.output: the tool's result, or the model call's transcript (JSON). */
  output: string | null;
  observation: string | null;
  extra: JsonObject;
}

/** What the span did, by its kind: a tool and its command, a model and what it answered or chose. */
function contentOf(kind: string, span: OtlpSpan, a: Attributes, model: string | null): StepContent {
  if (kind === 'tool_call') {
    const call = toolCallOf(a);
    const tool = call.name ?? span.name;
    const extra: JsonObject = call.callId ? { toolCallId: call.callId } : {};
    return { tool, action: toolAction(tool, call.arguments), parameters: toolParameters(call.arguments), output: call.result, observation: call.result, extra };
  }
  if (kind === 'llm_call') {
    const output = outputMessages(span, a);
    const calls = chosenToolCalls(output);
    const extra: JsonObject = calls.length ? { toolCalls: calls } : {};
    // The model is the step's parameters and metadata, never its tool: a model is not a tool the agent chose.
    const transcript = transcriptOf(inputMessages(span, a), output);
    return { tool: null, action: modelAction(model, output), parameters: modelParameters(a, model), output: transcript, observation: answerOf(output), extra };
  }
  const answer = kind === 'agent_call' ? answerOf(outputMessages(span, a)) : null;
  const agent = text(a['gen_ai.agent.name']) ?? text(a['ai.telemetry.functionId']);
  const extra: JsonObject = kind === 'agent_call' && agent ? { agent } : {};
  return { tool: null, action: span.name || kind, parameters: undefined, output: answer, observation: answer, extra };
}

const STATED_OUTCOMES = new Set(['success', 'failure', 'partial', 'unknown']);

/** episodic.outcome on a call (span, else resource): how a run without an agent root says how it went (run-outcome.ts). */
function statedOutcomeOf(span: OtlpSpan): JsonObject {
  const stated = text(span.attributes[OUTCOME_ATTRIBUTE] ?? span.resource[OUTCOME_ATTRIBUTE])
    ?.trim()
    .toLowerCase();
  if (!stated || !STATED_OUTCOMES.has(stated)) return {};
  const verdict = text(span.attributes['episodic.verdict'] ?? span.resource['episodic.verdict']);
  return { statedOutcome: stated, ...(verdict ? { statedVerdict: cutBytes(verdict, 2000) } : {}) };
}

/**
 * A model call's cost: the span's own (gen_ai.usage.cost and the like), else its tokens at the
 * model's price; `known: false` when it used tokens and neither says what they cost (not 0).
 */
function costOfCall(kind: string, usage: ReturnType<typeof usageOf>, tokens: number | null, prices: PriceTable | null) {
  if (usage.cost != null) return { cost: usage.cost, source: 'span' as const };
  if (kind !== 'llm_call' || !tokens) return { cost: null, source: null };
  const price = prices ? priceOf(usage.model, prices) : null;
  const cost = price ? costOf(usage, price) : null;
  return cost == null ? { cost: null, source: 'unknown' as const } : { cost, source: 'price_table' as const };
}

/**
 * A span below the root as a step; its side-effect key (the span id) makes a retried export a
 * duplicate. `prices`: the model price table for spans without a cost of their own (null: none).
 */
export function stepOfSpan(span: OtlpSpan, prices: PriceTable | null = null): StepInput {
  const a = allAttributes(span);
  const kind = KIND_BY_OPERATION[operationOf(span)];
  const usage = usageOf(a);
  const content = contentOf(kind, span, a, usage.model);
  // A sub-agent's span sums its children's tokens: counted once, on the children.
  const tokens = kind === 'agent_call' ? null : usage.tokens;
  const error = errorOf(span);
  const priced = costOfCall(kind, usage, tokens, prices);
  const metadata: JsonObject = {
    spanId: span.spanId,
    ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
    ...(text(span.attributes['gen_ai.operation.name']) ? { operation: text(span.attributes['gen_ai.operation.name']) } : {}),
    ...(usage.model ? { model: usage.model } : {}),
    ...(usage.inputTokens != null && tokens != null ? { inputTokens: usage.inputTokens } : {}),
    ...(usage.outputTokens != null && tokens != null ? { outputTokens: usage.outputTokens } : {}),
    ...(priced.source ? { costSource: priced.source } : {}),
    ...statedOutcomeOf(span),
    ...content.extra,
  };
  return {
    kind,
    tool: content.tool,
    action: cutBytes(content.action, STEP_LIMITS.actionBytes),
    ...(content.parameters !== undefined ? { parameters: content.parameters } : {}),
    result: error ?? { kind: 'success', ...(content.output ? { output: content.output } : {}) },
    ...(content.observation ? { observation: cutBytes(content.observation, STEP_LIMITS.observationBytes) } : {}),
    latencyMs: Math.max(0, span.endMs - span.startMs),
    ...(tokens != null ? { tokens: Math.round(tokens) } : {}),
    ...(priced.cost != null ? { cost: priced.cost } : {}),
    sideEffectKey: sideEffectKeyOfSpan(span.spanId),
    metadata,
    startedAt: new Date(span.startMs),
    endedAt: new Date(Math.max(span.startMs, span.endMs)),
  };
}

/**
 * The outcome of a run whose root span ended: `episodic.outcome` when set (success, partial,
 * failure, unknown); else an agent span's status (OK a success, ERROR a failure), and ERROR of any
 * root a failure. An OK model call or an UNSET status says nothing about the task: unknown.
 */
export function outcomeOfRoot(root: OtlpSpan): Outcome {
  const a = root.attributes;
  const stated = text(a[OUTCOME_ATTRIBUTE])?.toLowerCase();
  const artifacts = stringList(a['episodic.artifacts']).map((x) => cutBytes(x, 1024));
  const message = root.status.message.trim() || text(a['error.type']);
  const verdict = text(a['episodic.verdict']);
  const agent = operationOf(root) === 'invoke_agent';
  if (stated === 'failure' || (!stated && root.status.code === STATUS_ERROR)) {
    return { kind: 'failure', reason: cutBytes(message || 'the root span ended with status ERROR', 10_000), artifacts };
  }
  if (stated === 'success' || (!stated && agent && root.status.code === STATUS_OK)) {
    return { kind: 'success', verdict: cutBytes(verdict ?? 'the agent span ended with status OK', 10_000), artifacts };
  }
  if (stated === 'partial')
    return { kind: 'partial', verdict: cutBytes(verdict ?? 'the root span ended (stated partial)', 10_000), completed: [], failed: [], artifacts };
  const why = agent ? 'its status UNSET' : `a ${root.status.code === STATUS_OK ? 'status OK' : 'status UNSET'} that is no agent's`;
  return {
    kind: 'unknown',
    verdict: cutBytes(verdict ?? `the root span ended without ${OUTCOME_ATTRIBUTE}, with ${why}: whether the task was solved is unknown`, 10_000),
    artifacts,
  };
}
