// MCP stdio's own door rule: how long one message (one line of stdin) may be. The SDK's
// StdioServerTransport buffers stdin whole and, past its 10 MiB buffer, throws from its data handler:
// the transport closes and the agent sees "Connection closed" for every call after. This guard sits
// between stdin and the transport: lines within the limit pass unchanged, one at a time (so the
// SDK's buffer never holds more than one line); a longer line is never buffered whole (its first
// and last bytes are kept to find its JSON-RPC id and method) and is answered here, naming the
// limit, while the server keeps serving: a tools/call with the typed InputLimitError as the tool's
// error, as the API's refusals are; any other request with a JSON-RPC error.
import { Transform, type TransformCallback, type Writable } from 'node:stream';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';

/** The longest line passed on: what the SDK's read buffer holds, its newline aside. */
const MAX_STDIO_LINE_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE - 1;

/** Bytes kept of each end of an oversized line: enough for its method (first) and id (last, as the SDK client writes it). */
const KEPT_BYTES = 512;

const NEWLINE = 0x0a;

/** The refusal of a line over the limit, as the JSON-RPC answer to its request (null: a notification or no id found, nothing to answer). */
export function oversizedAnswer(head: string, tail: string, bytes: number, limit = MAX_STDIO_LINE_BYTES): string | null {
  const id = idAtEnd(tail) ?? idAtStart(head);
  if (id === undefined) return null;
  const message = `arguments: the message is ${bytes} bytes; the limit is ${limit} bytes (one line of episodic mcp's stdin). Nothing was written.`;
  const answer = /"method"\s*:\s*"tools\/call"/.test(head)
    ? { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: `InputLimitError: ${message}` }], isError: true } }
    : { jsonrpc: '2.0', id, error: { code: -32600, message: `InputLimitError: ${message}`, data: { field: 'message', limit: `${limit} bytes` } } };
  return `${JSON.stringify(answer)}\n`;
}

const ID = String.raw`"id"\s*:\s*(-?\d{1,16}|"[^"\\]{0,200}")`;

/** The id that closes the request (the SDK client writes it last); an "id" inside the arguments never ends the line. */
const idAtEnd = (tail: string) => idOf(new RegExp(`${ID}\\s*}\\s*$`).exec(tail));

/** The id of a request that names it among its first members. */
const idAtStart = (head: string) => idOf(new RegExp(String.raw`^\s*\{\s*(?:"(?:jsonrpc|method)"\s*:\s*"[^"]*"\s*,\s*){0,2}` + ID).exec(head));

function idOf(match: RegExpExecArray | null): string | number | undefined {
  if (!match?.[1]) return undefined;
  return match[1].startsWith('"') ? match[1].slice(1, -1) : Number(match[1]);
}

/** Stdin as whole lines within the limit; an oversized line is answered on `out` and dropped. */
export function guardLines(out: Writable, limit = MAX_STDIO_LINE_BYTES): Transform {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  /** Set while a line over the limit is read: its size so far, its first and its last bytes. */
  let oversized: { bytes: number; head: Buffer; tail: Buffer } | null = null;

  const endLine = (push: (line: Buffer) => void) => {
    if (oversized) {
      const answer = oversizedAnswer(oversized.head.toString('utf8'), oversized.tail.toString('utf8'), oversized.bytes, limit);
      if (answer) out.write(answer);
      oversized = null;
    } else push(Buffer.concat([...pending, Buffer.from([NEWLINE])]));
    pending = [];
    pendingBytes = 0;
  };

  const take = (part: Buffer) => {
    if (oversized) {
      oversized.bytes += part.length;
      oversized.tail = Buffer.concat([oversized.tail, part]).subarray(-KEPT_BYTES);
      return;
    }
    if (pendingBytes + part.length <= limit) {
      pending.push(part);
      pendingBytes += part.length;
      return;
    }
    const line = Buffer.concat([...pending, part]);
    oversized = { bytes: line.length, head: line.subarray(0, KEPT_BYTES), tail: Buffer.from(line.subarray(-KEPT_BYTES)) };
    pending = [];
    pendingBytes = 0;
  };

  return new Transform({
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      let from = 0;
      for (let at = chunk.indexOf(NEWLINE, from); at !== -1; at = chunk.indexOf(NEWLINE, from)) {
        take(chunk.subarray(from, at));
        endLine((line) => this.push(line));
        from = at + 1;
      }
      if (from < chunk.length) take(chunk.subarray(from));
      done();
    },
    flush(done: TransformCallback) {
      if (pendingBytes) this.push(Buffer.concat(pending));
      done();
    },
  });
}
