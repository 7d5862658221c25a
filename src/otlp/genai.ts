// Reading the OpenTelemetry GenAI semantic conventions off a span: the operation, the messages,
// tokens, model, tool call. The current (Development status) names come first, then the older
// names instrumentations still emit (OpenLLMetry's indexed gen_ai.prompt.N.*, gen_ai.usage.prompt_tokens,
// OpenInference's llm.* and input.value/output.value). Pure.
import { inputMessages, outputMessages, parsed } from './messages.ts';
import type { Attributes, AttrValue, OtlpSpan } from './spans.ts';

export type Operation = 'invoke_agent' | 'execute_tool' | 'model_call' | 'other';

/** gen_ai.operation.name values that call a model. */
const MODEL_OPERATIONS = new Set(['chat', 'text_completion', 'generate_content', 'embeddings', 'completion']);

/** Attributes of the span and of its events (older instrumentations put prompts in events). */
export function allAttributes(span: OtlpSpan): Attributes {
  return Object.assign({}, ...span.events.map((e) => e.attributes), span.attributes);
}

/** Whether a span says what its model was asked or answered, in its attributes or its events (the GenAI log events logs.ts adds). */
export function carriesMessages(span: OtlpSpan): boolean {
  const a = allAttributes(span);
  return inputMessages(span, a).length > 0 || outputMessages(span, a).length > 0;
}

/** AI SDK span operations (ai.operationId): the call of generateText/streamText is the agent run, its doGenerate/doStream a model call. */
const AI_SDK_AGENT = /^ai\.(generateText|streamText|generateObject|streamObject)$/;
const AI_SDK_MODEL = /^ai\.(generateText|streamText|generateObject|streamObject)\.do(Generate|Stream)$|^ai\.embed(Many)?(\.doEmbed)?$/;

/** What a span did, by the GenAI operation name, else by each library's own marker. */
export function operationOf(span: OtlpSpan): Operation {
  const a = span.attributes;
  const op = text(a['gen_ai.operation.name']);
  if (op === 'invoke_agent' || op === 'create_agent') return 'invoke_agent';
  if (op === 'execute_tool') return 'execute_tool';
  if (op && MODEL_OPERATIONS.has(op)) return 'model_call';
  const aiSdk = text(a['ai.operationId']);
  if (aiSdk === 'ai.toolCall') return 'execute_tool';
  if (aiSdk && AI_SDK_AGENT.test(aiSdk)) return 'invoke_agent';
  if (aiSdk && AI_SDK_MODEL.test(aiSdk)) return 'model_call';
  const kind = (text(a['openinference.span.kind']) ?? text(a['traceloop.span.kind']))?.toUpperCase();
  if (kind === 'AGENT') return 'invoke_agent';
  if (kind === 'TOOL' || a['gen_ai.tool.name'] != null) return 'execute_tool';
  if (kind === 'LLM' || kind === 'EMBEDDING' || a['gen_ai.request.model'] != null || a['gen_ai.system'] != null || a['llm.model_name'] != null)
    return 'model_call';
  return 'other';
}

export function text(v: AttrValue | undefined): string | null {
  if (v == null) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

export function count(v: AttrValue | undefined): number | null {
  const n = typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : null;
}

export const first = <T>(...values: Array<T | null | undefined>): T | null => values.find((v) => v != null) ?? null;

/** The task a run was given: its first user message (or the only message without a role). */
export function firstUserMessage(span: OtlpSpan, a: Attributes = allAttributes(span)): string | null {
  const messages = inputMessages(span, a).filter((m) => m.text.trim());
  return first(messages.find((m) => m.role === 'user' || m.role === 'human')?.text, messages.find((m) => m.role === null)?.text);
}

export interface Usage {
  inputTokens: number | null;
  outputTokens: number | null;
  tokens: number | null;
  cost: number | null;
  model: string | null;
}

export function usageOf(a: Attributes): Usage {
  const inputTokens = first(
    count(a['gen_ai.usage.input_tokens']),
    count(a['gen_ai.usage.prompt_tokens']),
    count(a['llm.token_count.prompt']),
    count(a['llm.usage.prompt_tokens']),
    count(a['ai.usage.inputTokens']),
    count(a['ai.usage.promptTokens']),
  );
  const outputTokens = first(
    count(a['gen_ai.usage.output_tokens']),
    count(a['gen_ai.usage.completion_tokens']),
    count(a['llm.token_count.completion']),
    count(a['llm.usage.completion_tokens']),
    count(a['ai.usage.outputTokens']),
    count(a['ai.usage.completionTokens']),
  );
  const total = first(
    count(a['llm.usage.total_tokens']),
    count(a['llm.token_count.total']),
    count(a['gen_ai.usage.total_tokens']),
    count(a['ai.usage.totalTokens']),
  );
  const sum = inputTokens != null || outputTokens != null ? (inputTokens ?? 0) + (outputTokens ?? 0) : null;
  return {
    inputTokens,
    outputTokens,
    tokens: first(sum, total),
    cost: first(count(a['gen_ai.usage.cost']), count(a['llm.usage.cost']), count(a['episodic.cost'])),
    model: first(
      text(a['gen_ai.response.model']),
      text(a['ai.response.model']),
      text(a['gen_ai.request.model']),
      text(a['llm.model_name']),
      text(a['ai.model.id']),
      text(a['llm.request.model']),
    ),
  };
}

export interface ToolCall {
  name: string | null;
  arguments: AttrValue | undefined;
  result: string | null;
  callId: string | null;
}

export function toolCallOf(a: Attributes): ToolCall {
  return {
    name: first(text(a['gen_ai.tool.name']), text(a['tool.name']), text(a['ai.toolCall.name']), text(a['traceloop.entity.name'])),
    arguments: parsed(a['gen_ai.tool.call.arguments'] ?? a['ai.toolCall.args'] ?? a['tool.parameters'] ?? a['input.value'] ?? a['traceloop.entity.input']),
    result: first(text(a['gen_ai.tool.call.result']), unquoted(text(a['ai.toolCall.result'])), text(a['output.value']), text(a['traceloop.entity.output'])),
    callId: first(text(a['gen_ai.tool.call.id']), text(a['ai.toolCall.id'])),
  };
}

/** The AI SDK writes a tool's result as JSON: a string result arrives quoted. */
function unquoted(v: string | null): string | null {
  if (!v?.startsWith('"')) return v;
  try {
    const value: unknown = JSON.parse(v);
    return typeof value === 'string' ? value : v;
  } catch {
    return v;
  }
}
