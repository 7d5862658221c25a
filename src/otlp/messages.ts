// The messages of a model call as each instrumentation library writes them, read into one shape:
// role, text and the tool calls the model chose. The library entries of docs/OTLP.md's mapping
// table name these attributes; change both together. Pure.
//
// - GenAI semantic conventions: gen_ai.input.messages / gen_ai.output.messages (parts, with
//   tool_call parts), or log events gen_ai.{system,user,assistant,tool}.message and gen_ai.choice
//   (the official @opentelemetry/instrumentation-openai; they arrive over /v1/logs, see logs.ts).
// - OpenInference: llm.input_messages.N.message.*, llm.output_messages.N.message.tool_calls.M.tool_call.*,
//   input.value (the request, with its messages) / output.value.
// - OpenLLMetry / Traceloop: gen_ai.prompt.N.*, gen_ai.completion.N.* (tool_calls.M.name|arguments).
// - Vercel AI SDK: ai.prompt ({system, prompt, messages}), ai.prompt.messages, ai.response.text,
//   ai.response.toolCalls.
import type { Attributes, AttrValue, OtlpSpan } from './spans.ts';

export interface ChosenToolCall {
  name: string;
  arguments: AttrValue;
  id: string | null;
}

export interface Message {
  role: string | null;
  text: string;
  toolCalls: ChosenToolCall[];
}

const isObject = (v: unknown): v is Attributes => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : null);

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

/** A tool call in any of the shapes: {name, arguments}, {function: {name, arguments}}, {toolName, input|args}, {type: tool_call}. */
function toolCallOfValue(v: AttrValue): ChosenToolCall | null {
  if (!isObject(v)) return null;
  const fn = isObject(v.function) ? v.function : v;
  const name = str(fn.name) ?? str(v.toolName);
  if (!name) return null;
  const args = fn.arguments ?? v.input ?? v.args ?? null;
  return { name, arguments: parsed(args ?? undefined) ?? null, id: str(v.id) ?? str(v.toolCallId) ?? str(v.tool_call_id) };
}

const toolCallsOf = (v: AttrValue | undefined): ChosenToolCall[] => (Array.isArray(v) ? v.flatMap((x) => toolCallOfValue(x) ?? []) : []);

/** Text parts of content: a string, an array of parts ({type: text, text|content}). */
function contentText(content: AttrValue | undefined): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .flatMap((p) => (typeof p === 'string' ? [p] : isObject(p) && (p.type === undefined || p.type === 'text') ? [str(p.text) ?? str(p.content) ?? ''] : []))
    .join('\n');
}

function messageOfValue(m: AttrValue): Message {
  if (typeof m === 'string') return { role: null, text: m, toolCalls: [] };
  if (!isObject(m)) return { role: null, text: '', toolCalls: [] };
  const inner = isObject(m.message) ? m.message : m;
  const parts = Array.isArray(inner.parts) ? inner.parts : Array.isArray(inner.content) ? inner.content : [];
  const partCalls = parts.filter((p) => isObject(p) && (p.type === 'tool_call' || p.type === 'tool-call')).flatMap((p) => toolCallOfValue(p) ?? []);
  return {
    role: str(inner.role),
    text: Array.isArray(inner.parts) ? contentText(inner.parts) : contentText(inner.content),
    toolCalls: [...partCalls, ...toolCallsOf(inner.tool_calls ?? inner.toolCalls)],
  };
}

/** A messages attribute: a JSON list, one message, a request body with `messages`, AI SDK's {system, prompt, messages}, or plain text. */
export function messagesOf(v: AttrValue | undefined): Message[] {
  const value = parsed(v);
  if (value == null) return [];
  if (typeof value === 'string') return [{ role: null, text: value, toolCalls: [] }];
  if (isObject(value) && (value.messages !== undefined || value.prompt !== undefined || value.system !== undefined)) {
    return [
      ...(typeof value.system === 'string' ? [{ role: 'system', text: value.system, toolCalls: [] }] : []),
      ...(typeof value.prompt === 'string' ? [{ role: 'user', text: value.prompt, toolCalls: [] }] : messagesOf(value.prompt ?? undefined)),
      ...messagesOf(value.messages ?? undefined),
    ];
  }
  return (Array.isArray(value) ? value : [value]).map(messageOfValue);
}

/** Indexed messages: gen_ai.prompt.0.role / .content / .tool_calls.0.name, llm.input_messages.0.message.role / ... */
function indexedMessages(a: Attributes, prefix: string, infix = ''): Message[] {
  const out: Message[] = [];
  for (let i = 0; ; i += 1) {
    const at = `${prefix}.${i}.${infix}`;
    if (a[`${at}content`] == null && a[`${at}role`] == null && a[`${at}tool_calls.0.tool_call.function.name`] == null && a[`${at}tool_calls.0.name`] == null)
      break;
    const toolCalls: ChosenToolCall[] = [];
    for (let k = 0; ; k += 1) {
      const oi = `${at}tool_calls.${k}.tool_call.`;
      const name = str(a[`${oi}function.name`]) ?? str(a[`${at}tool_calls.${k}.name`]);
      if (!name) break;
      const args = a[`${oi}function.arguments`] ?? a[`${at}tool_calls.${k}.arguments`];
      toolCalls.push({ name, arguments: parsed(args ?? undefined) ?? null, id: str(a[`${oi}id`]) ?? str(a[`${at}tool_calls.${k}.id`]) });
    }
    out.push({ role: str(a[`${at}role`]), text: str(a[`${at}content`]) ?? '', toolCalls });
  }
  return out;
}

const said = (list: Message[]) => list.some((m) => m.text.trim() || m.toolCalls.length);

/** GenAI log events (as span events, logs.ts): the prompt's messages, or the choices. */
function eventMessages(span: OtlpSpan, names: readonly string[]): Message[] {
  return span.events
    .filter((e) => names.includes(e.name))
    .map((e) => {
      const body = e.attributes;
      const m = messageOfValue(isObject(body.message) ? body.message : body);
      return { ...m, role: m.role ?? e.name.replace(/^gen_ai\.|\.message$/g, '').replace('choice', 'assistant') };
    });
}

const INPUT_EVENTS = ['gen_ai.system.message', 'gen_ai.user.message', 'gen_ai.assistant.message', 'gen_ai.tool.message'] as const;

/** What the model was asked, in order. */
export function inputMessages(span: OtlpSpan, a: Attributes): Message[] {
  const lists = [
    () => messagesOf(a['gen_ai.input.messages']),
    () => indexedMessages(a, 'llm.input_messages', 'message.'),
    () => indexedMessages(a, 'gen_ai.prompt'),
    () => messagesOf(a['ai.prompt.messages']),
    () => messagesOf(a['ai.prompt']),
    () => messagesOf(a['gen_ai.prompt']),
    () => eventMessages(span, INPUT_EVENTS),
    () => messagesOf(a['input.value']),
  ];
  for (const list of lists) {
    const found = list();
    if (said(found)) return found;
  }
  return [];
}

/** What the model answered: its text and the tool calls it chose. */
export function outputMessages(span: OtlpSpan, a: Attributes): Message[] {
  const aiSdk = () => {
    const calls = toolCallsOf(parsed(a['ai.response.toolCalls']));
    const text = str(a['ai.response.text']) ?? '';
    return text || calls.length ? [{ role: 'assistant', text, toolCalls: calls }] : [];
  };
  const lists = [
    () => messagesOf(a['gen_ai.output.messages']),
    () => indexedMessages(a, 'llm.output_messages', 'message.'),
    () => indexedMessages(a, 'gen_ai.completion'),
    aiSdk,
    () => eventMessages(span, ['gen_ai.choice']),
    () => messagesOf(a['gen_ai.completion']),
    () => messagesOf(a['output.value']).filter((m) => m.text.trim() || m.toolCalls.length),
  ];
  for (const list of lists) {
    const found = list();
    if (said(found)) return found;
  }
  return [];
}
