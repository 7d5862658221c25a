// The only fake of the agent fixtures: an OpenAI-compatible chat completions endpoint on 127.0.0.1
// that plays a 3-call tool-calling run. Its answer depends on how many tool results the request
// carries: none, it asks for `bash` (ls); one, for `read_file`; two, it answers in text. Each answer
// carries usage, as the real API does, so the instrumentations have tokens to record.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export const MODEL = 'gpt-4o-mini';
/** The model the answers say served them (instrumentations record it as the response model). */
export const RESPONSE_MODEL = 'gpt-4o-mini-2024-07-18';
export const FINAL_ANSWER = 'The rounding bug is in src/invoice.ts: totals are rounded per line instead of once.';

/** The tool calls the model makes, in order, and what each returns when the agent runs it. */
export const SCRIPT = [
  { name: 'bash', args: { command: 'ls src' }, result: 'invoice.ts\nmain.ts' },
  { name: 'read_file', args: { path: 'src/invoice.ts' }, result: 'export const total = (lines) => lines.map(Math.round)' },
] as const;

/** Tokens of the three calls: prompt and completion. */
export const USAGE = [
  { prompt_tokens: 1200, completion_tokens: 30 },
  { prompt_tokens: 1260, completion_tokens: 28 },
  { prompt_tokens: 1330, completion_tokens: 45 },
] as const;

export const TOTAL_TOKENS = USAGE.reduce((n, u) => n + u.prompt_tokens + u.completion_tokens, 0);

export interface FakeModel {
  /** The OpenAI base URL (…/v1). */
  baseURL: string;
  close(): Promise<void>;
}

async function jsonBody(req: IncomingMessage): Promise<{ messages?: Array<{ role: string }> }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

function completion(turn: number) {
  const call = SCRIPT[turn];
  const usage = USAGE[Math.min(turn, USAGE.length - 1)] ?? USAGE[0];
  const message = call
    ? {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: `call_${turn}`, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args) } }],
      }
    : { role: 'assistant', content: FINAL_ANSWER };
  return {
    id: `chatcmpl-${turn}-${Date.now()}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: RESPONSE_MODEL,
    choices: [{ index: 0, message, finish_reason: call ? 'tool_calls' : 'stop', logprobs: null }],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

export async function startFakeModel(): Promise<FakeModel> {
  const server = createServer(async (req, res) => {
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no route ${req.url}` } }));
      return;
    }
    const body = await jsonBody(req);
    const turn = (body.messages ?? []).filter((m) => m.role === 'tool').length;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion(turn)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { baseURL: `http://127.0.0.1:${port}/v1`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
