// Reading the OpenTelemetry GenAI semantic conventions off a span: the operation, the messages,
// tokens, model, tool call. The current (Development status) names come first, then the older
// names instrumentations still emit (OpenLLMetry's indexed gen_ai.prompt.N.*, gen_ai.usage.prompt_tokens,
// OpenInference's llm.* and input.value/output.value). Pure.
import type { Attributes, AttrValue, OtlpSpan } from './spans.ts';

export type Operation = 'invoke_agent' | 'execute_tool' | 'model_call' | 'other';

/** gen_ai.operation.name values that call a model. */
const MODEL_OPERATIONS = new Set(['chat', 'text_completion', 'generate_content', 'embeddings', 'completion']);

/** Attributes of the span and of its events (older instrumentations put prompts in events). */
export function allAttributes(span: OtlpSpan): Attributes {
  return Object.assign({}, ...span.events.map((e) => e.attributes), span.attributes);
}

export function operationOf(span: OtlpSpan): Operation {
  const a = span.attributes;
  const op = text(a['gen_ai.operation.name']);
  if (op === 'invoke_agent' || op === 'create_agent') return 'invoke_agent';
  if (op === 'execute_tool') return 'execute_tool';
  if (op && MODEL_OPERATIONS.has(op)) return 'model_call';
  const kind = text(a['openinference.span.kind'])?.toUpperCase();
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

/** A JSON attribute (messages, arguments) as a value; plain text stays text. */
export function parsed(v: AttrValue | undefined): AttrValue | undefined {
  if (typeof v !== 'string') return v;
  const t = v.trim();
  if (!t.startsWith('[') && !t.startsWith('{')) return v;
  try {
    return JSON.parse(t) as AttrValue;
  } catch {
    return v;
  }
}

interface Message {
  role: string | null;
  text: string;
}

/** The text of a message: its text parts (current convention) or its content (older shapes). */
function messageText(m: AttrValue): string {
  if (typeof m === 'string') return m;
  if (!m || typeof m !== 'object' || Array.isArray(m)) return '';
  if (Array.isArray(m.parts)) {
    return m.parts.flatMap((p) => (p && typeof p === 'object' && !Array.isArray(p) && typeof p.content === 'string' ? [p.content] : [])).join('\n');
  }
  if (typeof m.content === 'string') return m.content;
  if (Array.isArray(m.content)) return m.content.map((c) => (typeof c === 'string' ? c : (text((c as Attributes)?.text) ?? ''))).join('\n');
  return '';
}

function messagesOf(v: AttrValue | undefined): Message[] {
  const value = parsed(v);
  if (value == null) return [];
  if (typeof value === 'string') return [{ role: null, text: value }];
  const list = Array.isArray(value) ? value : [value];
  return list.map((m) => ({ role: m && typeof m === 'object' && !Array.isArray(m) ? text(m.role) : null, text: messageText(m) }));
}

/** Indexed messages: gen_ai.prompt.0.role / gen_ai.prompt.0.content, llm.input_messages.0.message.role / ... */
function indexedMessages(a: Attributes, prefix: string, infix = ''): Message[] {
  const out: Message[] = [];
  for (let i = 0; a[`${prefix}.${i}.${infix}content`] != null || a[`${prefix}.${i}.${infix}role`] != null; i += 1) {
    out.push({ role: text(a[`${prefix}.${i}.${infix}role`]), text: text(a[`${prefix}.${i}.${infix}content`]) ?? '' });
  }
  return out;
}

function inputMessages(a: Attributes): Message[] {
  const lists = [
    messagesOf(a['gen_ai.input.messages']),
    messagesOf(a['gen_ai.prompt']),
    indexedMessages(a, 'gen_ai.prompt'),
    indexedMessages(a, 'llm.input_messages', 'message.'),
    messagesOf(a['input.value']),
  ];
  return lists.find((l) => l.some((m) => m.text.trim())) ?? [];
}

export function outputText(a: Attributes): string | null {
  const lists = [
    messagesOf(a['gen_ai.output.messages']),
    messagesOf(a['gen_ai.completion']),
    indexedMessages(a, 'gen_ai.completion'),
    indexedMessages(a, 'llm.output_messages', 'message.'),
    messagesOf(a['output.value']),
  ];
  const found = lists.find((l) => l.some((m) => m.text.trim()));
  return found ? found.map((m) => m.text).join('\n') : null;
}

/** The task a run was given: its first user message (or the only message without a role). */
export function firstUserMessage(a: Attributes): string | null {
  const messages = inputMessages(a).filter((m) => m.text.trim());
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
  );
  const outputTokens = first(
    count(a['gen_ai.usage.output_tokens']),
    count(a['gen_ai.usage.completion_tokens']),
    count(a['llm.token_count.completion']),
    count(a['llm.usage.completion_tokens']),
  );
  const total = first(count(a['llm.usage.total_tokens']), count(a['llm.token_count.total']));
  const sum = inputTokens != null || outputTokens != null ? (inputTokens ?? 0) + (outputTokens ?? 0) : null;
  return {
    inputTokens,
    outputTokens,
    tokens: first(sum, total),
    cost: first(count(a['gen_ai.usage.cost']), count(a['llm.usage.cost']), count(a['episodic.cost'])),
    model: first(text(a['gen_ai.response.model']), text(a['gen_ai.request.model']), text(a['llm.model_name']), text(a['llm.request.model'])),
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
    name: first(text(a['gen_ai.tool.name']), text(a['tool.name'])),
    arguments: parsed(a['gen_ai.tool.call.arguments'] ?? a['tool.parameters'] ?? a['input.value']),
    result: first(text(a['gen_ai.tool.call.result']), text(a['output.value'])),
    callId: text(a['gen_ai.tool.call.id']),
  };
}
