// The generic JSONL format (docs: README "Importing runs"): one run per file. Line 1 describes the
// run, every later line one step:
//   {"type":"run","id":"...","task":"...","domain":"owner/repo","language":"python","startedAt":"ISO",
//    "endedAt":"ISO","resolved":true,"patch":"diff --git ...","exitStatus":"submitted","agent":"..."}
//   {"type":"step","command":"pytest -q","tool":"test","exitCode":1,"output":"...","thought":"...",
//    "startedAt":"ISO","endedAt":"ISO","tokens":120,"cost":0.01,"latencyMs":900,"timedOut":false}
// Only "type", "id" and "task" (run) and "type" plus "command" or "action" (step) are required.
import { actionOf, resultKindOf, toolOf } from './commands.ts';
import { finishWithSubmit } from './mini-swe-agent.ts';
import { changedFiles, type ImportedRun, type ImportedStep, ImportFileError, languageOf, parseJson, repositoryOf } from './run.ts';

export const JSONL = 'jsonl';

type Line = Record<string, unknown>;

function field<T>(file: string, line: number, obj: Line, name: string, check: (v: unknown) => v is T, what: string): T | undefined {
  const value = obj[name];
  if (value === undefined || value === null) return undefined;
  if (!check(value)) throw new ImportFileError(file, line, `"${name}" must be ${what}`);
  return value;
}

function required<T>(file: string, line: number, obj: Line, name: string, check: (v: unknown) => v is T, what: string): T {
  const value = field(file, line, obj, name, check, what);
  if (value === undefined) throw new ImportFileError(file, line, `"${name}" is required`);
  return value;
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isBoolean = (v: unknown): v is boolean => typeof v === 'boolean';

function date(file: string, line: number, obj: Line, name: string): Date | null {
  const value = field(file, line, obj, name, isString, 'an ISO 8601 time');
  if (value === undefined) return null;
  const parsed = new Date(value);
  if (Number.isNaN(parsed.getTime())) throw new ImportFileError(file, line, `"${name}" must be an ISO 8601 time, got ${JSON.stringify(value)}`);
  return parsed;
}

function stepOf(file: string, line: number, obj: Line): ImportedStep {
  const command = field(file, line, obj, 'command', isString, 'a string') ?? field(file, line, obj, 'action', isString, 'a string');
  if (!command) throw new ImportFileError(file, line, 'a step needs "command" (or "action")');
  const exitCode = field(file, line, obj, 'exitCode', isNumber, 'a number') ?? null;
  const kind = resultKindOf(exitCode, field(file, line, obj, 'timedOut', isBoolean, 'true or false') ?? false);
  const output = field(file, line, obj, 'output', isString, 'a string') ?? '';
  const error = field(file, line, obj, 'error', isString, 'a string');
  const result: ImportedStep['result'] =
    kind === 'ERROR' ? { kind, message: error || `exit code ${exitCode}`, errorClass: `exit_${exitCode}`, output } : { kind, output };
  const latencyMs = field(file, line, obj, 'latencyMs', isNumber, 'a number');
  return {
    kind: 'tool_call',
    tool: field(file, line, obj, 'tool', isString, 'a string') ?? toolOf(command),
    action: actionOf(command),
    parameters: { command },
    result,
    thought: field(file, line, obj, 'thought', isString, 'a string') ?? null,
    startedAt: date(file, line, obj, 'startedAt'),
    endedAt: date(file, line, obj, 'endedAt'),
    tokens: field(file, line, obj, 'tokens', isNumber, 'a number') ?? null,
    cost: field(file, line, obj, 'cost', isNumber, 'a number') ?? null,
    line,
    ...(latencyMs !== undefined ? { latencyMs } : {}),
  };
}

export function parseGenericJsonl(file: string, source: string): ImportedRun {
  const lines = source.split('\n');
  const objects: Array<{ line: number; obj: Line }> = [];
  lines.forEach((text, i) => {
    if (!text.trim()) return;
    const obj = parseJson(file, text, i);
    if (!obj || typeof obj !== 'object' || Array.isArray(obj)) throw new ImportFileError(file, i + 1, 'each line must be a JSON object');
    objects.push({ line: i + 1, obj: obj as Line });
  });
  const head = objects[0];
  if (head?.obj.type !== 'run') throw new ImportFileError(file, head?.line ?? 1, 'the first line must be {"type":"run", ...}');
  const run = head.obj;
  const steps = objects.slice(1).map(({ line, obj }) => {
    if (obj.type !== 'step') throw new ImportFileError(file, line, `expected {"type":"step", ...}, got type ${JSON.stringify(obj.type)}`);
    return stepOf(file, line, obj);
  });
  const id = required(file, head.line, run, 'id', isString, 'a string');
  const task = required(file, head.line, run, 'task', isString, 'a string');
  if (!task.trim()) throw new ImportFileError(file, head.line, '"task" must not be empty');
  const patch = field(file, head.line, run, 'patch', isString, 'a string') ?? '';
  finishWithSubmit(steps, patch);
  const times = steps.flatMap((s) => [s.startedAt, s.endedAt]).filter((t): t is Date => t !== null);
  const startedAt = date(file, head.line, run, 'startedAt') ?? (times.length ? new Date(Math.min(...times.map((t) => t.getTime()))) : null);
  const endedAt = date(file, head.line, run, 'endedAt') ?? (times.length ? new Date(Math.max(...times.map((t) => t.getTime()))) : null);
  return {
    format: JSONL,
    instanceId: id,
    taskDescription: task,
    domain: field(file, head.line, run, 'domain', isString, 'a string') ?? repositoryOf(id),
    language: field(file, head.line, run, 'language', isString, 'a string') ?? languageOf(changedFiles(patch)),
    steps,
    patch,
    exitStatus: field(file, head.line, run, 'exitStatus', isString, 'a string') ?? null,
    startedAt,
    endedAt,
    agent: field(file, head.line, run, 'agent', isString, 'a string') ?? null,
    resolved: field(file, head.line, run, 'resolved', isBoolean, 'true or false') ?? null,
  };
}
