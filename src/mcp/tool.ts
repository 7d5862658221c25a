// The shape of one MCP tool: a name, a description an agent can act on, the scope its key needs,
// a zod input schema (the SDK turns it into the JSON schema tools/list shows and validates calls
// against it), and a run that executes GraphQL operations through an executor. The executor is
// the typed client's transport: over HTTP for `episodic mcp`, in-process for /mcp.
import type { z } from 'zod';
import type { Request } from '../client/transport.ts';
import { violationsText } from './format.ts';

export type ToolScope = 'read' | 'write';

/** What a tool answers: text for the prompt, the structured result beside it. */
export interface ToolAnswer {
  text: string;
  structured: Record<string, unknown>;
  isError?: boolean;
}

export interface Tool {
  name: string;
  title: string;
  description: string;
  scope: ToolScope;
  input: z.ZodRawShape;
  run(args: Record<string, unknown>, request: Request): Promise<ToolAnswer>;
}

/** A tool whose run reads its arguments with the types its input schema declares. */
export function defineTool<const S extends z.ZodRawShape>(tool: {
  name: string;
  title: string;
  description: string;
  scope: ToolScope;
  input: S;
  run(args: z.infer<z.ZodObject<S>>, request: Request): Promise<ToolAnswer>;
}): Tool {
  // The SDK validated the arguments against this very schema before the call.
  return { ...tool, run: (args, request) => tool.run(args as z.infer<z.ZodObject<S>>, request) };
}

type UnionResult = { __typename: string; message?: string | null; violations?: Array<Record<string, unknown>> | null } & Record<string, unknown>;

/** API field paths a tool's arguments map to (`outcome.verdict` -> `summary`), so an error names the argument the agent passed. */
export type ArgumentNames = ReadonlyArray<readonly [apiPath: string, argument: string]>;

function renamed(text: string, names: ArgumentNames): string {
  return names.reduce((out, [path, argument]) => out.replace(new RegExp(`\\b(?:input\\.)?${path.replace(/\./g, '\\.')}\\b`, 'g'), argument), text);
}

function withArgumentNames(violation: Record<string, unknown>, names: ArgumentNames): Record<string, unknown> {
  const out = { ...violation };
  for (const key of ['field', 'message'] as const) if (typeof out[key] === 'string') out[key] = renamed(out[key], names);
  return out;
}

/** A result-union error as a tool error: its type, its message and each field (as the tool's argument) with its limit. */
function errorAnswer(result: UnionResult, names: ArgumentNames): ToolAnswer {
  const violations = result.violations?.map((v) => withArgumentNames(v, names));
  // A refused input changes nothing: the API checks every limit before it writes (or records a receipt).
  const detail = violations?.length ? `${violationsText(violations)}. Nothing was written.` : renamed(result.message ?? 'refused', names);
  return { text: `${result.__typename}: ${detail}`, structured: { ...result, ...(violations ? { violations } : {}) }, isError: true };
}

/** The success member of a union result through `toText`, or the error member as a tool error. */
export function answer<T extends { __typename: string }>(result: T, toText: (r: T) => string, names: ArgumentNames = []): ToolAnswer {
  if (result.__typename.endsWith('Error')) return errorAnswer(result as unknown as UnionResult, names);
  return { text: toText(result), structured: result as unknown as Record<string, unknown> };
}
