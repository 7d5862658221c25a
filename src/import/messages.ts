// Chat messages as trajectory formats store them: their text, and whether one belongs to a
// demonstration. SWE-agent puts a demonstration (a whole solved example, with its own issue) in
// `history` before the run's own task; the task is the first user message that is not part of it.

export interface ChatMessage {
  role?: unknown;
  content?: unknown;
  /** SWE-agent 0.x and 1.x mark every demonstration message with it. */
  is_demo?: unknown;
  /** SWE-agent 1.x: system_prompt, demonstration, observation, action, ... */
  message_type?: unknown;
}

/** Message content as text (a list of parts, e.g. [{type: "text", text}], is joined). */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p === 'string' ? p : typeof p?.text === 'string' ? p.text : '')).join('');
  return '';
}

// SWE-agent's demonstration_template (0.x and 1.x) opens with this sentence; a demonstration
// message copied without its flag still carries it.
const DEMONSTRATION_LEAD = /^\s*Here is a demonstration of how to correctly accomplish this task/;

export function isDemonstration(message: ChatMessage): boolean {
  return message.is_demo === true || message.message_type === 'demonstration' || DEMONSTRATION_LEAD.test(textOf(message.content));
}

/** The run's own task message: the first user message that is not part of a demonstration. */
export function taskMessageOf<M extends ChatMessage>(messages: readonly M[]): M | undefined {
  return messages.find((m) => m.role === 'user' && !isDemonstration(m));
}
