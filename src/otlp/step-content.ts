// What a model call or a tool call step says it did: its action (the tool and its command; the
// model and the tool it chose or the first words of its answer), and a model call's transcript
// (what it was asked and what it answered, tool calls included). Pure.
import type { JsonObject, JsonValue } from '../validation/json.ts';
import type { ChosenToolCall, Message } from './messages.ts';
import type { AttrValue } from './spans.ts';

/** Characters of a command or answer shown in an action. */
const ACTION_CHARS = 120;
/** Words of an answer shown in an action. */
const ANSWER_WORDS = 12;
/** Tool calls kept in a step's metadata (all of them stay in the transcript). */
const METADATA_TOOL_CALLS = 20;
const METADATA_ARGUMENT_CHARS = 2000;

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/** The command-like part of tool arguments: the first text value (command, path, query, ...), else the arguments as JSON. */
export function commandOf(args: AttrValue | undefined): string {
  if (args == null) return '';
  if (typeof args !== 'object') return oneLine(String(args));
  const values = Array.isArray(args) ? args : Object.values(args);
  const textValue = values.find((v): v is string => typeof v === 'string' && v.trim() !== '');
  return oneLine(textValue ?? JSON.stringify(args));
}

export const toolAction = (tool: string, args: AttrValue | undefined) => clip(oneLine(`${tool} ${commandOf(args)}`), ACTION_CHARS + tool.length + 1);

const callText = (c: ChosenToolCall) => `${c.name}(${clip(commandOf(c.arguments), ACTION_CHARS)})`;

/** "gpt-4o → bash(ls src)" or "gpt-4o: The bug is in …". */
export function modelAction(model: string | null, output: readonly Message[]): string {
  const who = model ?? 'model';
  const calls = output.flatMap((m) => m.toolCalls);
  if (calls.length) return `${who} → ${calls.map(callText).join(', ')}`;
  const answer = oneLine(output.map((m) => m.text).join(' '));
  if (!answer) return `${who} (no answer)`;
  const words = answer.split(' ');
  return `${who}: ${clip(words.slice(0, ANSWER_WORDS).join(' '), ACTION_CHARS)}${words.length > ANSWER_WORDS ? ' …' : ''}`;
}

/** The answer as an observation: its text, else the tool calls it chose. */
export function answerOf(output: readonly Message[]): string | null {
  const text = output
    .map((m) => m.text)
    .join('\n')
    .trim();
  if (text) return text;
  const calls = output.flatMap((m) => m.toolCalls);
  return calls.length ? `calls ${calls.map(callText).join(', ')}` : null;
}

const messageJson = (m: Message): JsonObject => ({
  role: m.role,
  content: m.text,
  ...(m.toolCalls.length ? { toolCalls: m.toolCalls.map((c) => ({ name: c.name, arguments: c.arguments as JsonValue, id: c.id })) } : {}),
});

/** The transcript of a model call as JSON text (kept as a blob when large). */
export function transcriptOf(input: readonly Message[], output: readonly Message[]): string | null {
  if (!input.length && !output.length) return null;
  return JSON.stringify({ input: input.map(messageJson), output: output.map(messageJson) });
}

/** The tool calls the model chose, small enough for step metadata. */
export function chosenToolCalls(output: readonly Message[]): JsonObject[] {
  return output
    .flatMap((m) => m.toolCalls)
    .slice(0, METADATA_TOOL_CALLS)
    .map((c) => ({
      name: c.name,
      arguments: clip(typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? null), METADATA_ARGUMENT_CHARS),
      ...(c.id ? { id: c.id } : {}),
    }));
}
