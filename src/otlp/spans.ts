// An OTLP export request (ExportTraceServiceRequest) read into plain spans. The protobuf decoder
// (codec.ts) and JSON.parse produce the same camelCase tree, except that ids are bytes in protobuf
// and hex in OTLP/JSON and that 64-bit integers may be Long objects or strings: both are read here.
// Pure.

/** An attribute value as OTLP's AnyValue carries it. */
export type AttrValue = string | number | boolean | null | AttrValue[] | { [key: string]: AttrValue };
export type Attributes = Record<string, AttrValue>;

/** A span's status code (OTLP Status.code; 0, unset, is neither). */
export const STATUS_OK = 1;
export const STATUS_ERROR = 2;

export interface OtlpSpan {
  /** 32 lowercase hex digits. */
  traceId: string;
  /** 16 lowercase hex digits. */
  spanId: string;
  /** null: a root span, or a span whose parent ran in another process (the run's root here). */
  parentSpanId: string | null;
  name: string;
  /** Unix milliseconds. */
  startMs: number;
  endMs: number;
  /** Unix microseconds: orders spans that start in the same millisecond (a tool call and the model call after it). */
  startUs: number;
  attributes: Attributes;
  status: { code: number; message: string };
  /** Span events (older GenAI instrumentations put prompts and completions there). */
  events: Array<{ name: string; attributes: Attributes }>;
  /** Attributes of the resource that emitted the span (service.name, ...). */
  resource: Attributes;
}

/** A span that could not be read: reported in partialSuccess, never dropped silently. */
export interface UnreadableSpan {
  index: number;
  reason: string;
}

export class MalformedRequestError extends Error {
  override name = 'MalformedRequestError';
}

type Tree = Record<string, unknown>;

export const isTree = (v: unknown): v is Tree => typeof v === 'object' && v !== null && !Array.isArray(v);
export const listOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : v == null ? [] : badShape('a repeated field is not a list'));

function badShape(message: string): never {
  throw new MalformedRequestError(message);
}

/** Bytes (protobuf) or hex (OTLP/JSON) as lowercase hex; '' when absent. */
export function idOf(v: unknown): string {
  if (v == null) return '';
  if (v instanceof Uint8Array) return Buffer.from(v).toString('hex');
  if (typeof v === 'string') return v.toLowerCase();
  return badShape('an id is neither bytes nor a hex string');
}

/** A 64-bit integer as a number: protobufjs gives a Long (or a number), OTLP/JSON a string or a number. */
function int64(v: unknown): number {
  if (v == null || v === '') return 0;
  if (typeof v === 'number') return v;
  if (typeof v === 'string' || (typeof v === 'object' && 'low' in (v as object))) {
    const n = Number(String(v));
    return Number.isFinite(n) ? n : badShape(`not an integer: ${String(v).slice(0, 40)}`);
  }
  return badShape('not an integer');
}

const nanosToUs = (v: unknown): number => {
  if (typeof v === 'string' && /^\d+$/.test(v)) return Number(BigInt(v) / 1_000n);
  if (typeof v === 'object' && v !== null && 'low' in v) return Number(BigInt(String(v)) / 1_000n);
  return Math.floor(int64(v) / 1_000);
};

/** Spans in the order they started, to the microsecond; the span id breaks a tie so the order never depends on arrival. */
export function byStart(a: OtlpSpan, b: OtlpSpan): number {
  return startUsOf(a) - startUsOf(b) || a.spanId.localeCompare(b.spanId);
}

/** Pending spans stored before startUs existed have only milliseconds. */
export const startUsOf = (s: OtlpSpan): number => s.startUs ?? s.startMs * 1_000;

/** When the earliest of the spans started, in microseconds. */
export const earliestStartUs = (spans: readonly OtlpSpan[]): number => Math.min(...spans.map(startUsOf));

export const nanosToMs = (v: unknown): number => {
  if (typeof v === 'string' && /^\d+$/.test(v)) return Number(BigInt(v) / 1_000_000n);
  if (typeof v === 'object' && v !== null && 'low' in v) return Number(BigInt(String(v)) / 1_000_000n);
  return Math.floor(int64(v) / 1_000_000);
};

export function anyValue(v: unknown): AttrValue {
  if (!isTree(v)) return null;
  if (v.stringValue != null) return String(v.stringValue);
  if (v.boolValue != null) return Boolean(v.boolValue);
  if (v.intValue != null) return int64(v.intValue);
  if (v.doubleValue != null) return Number(v.doubleValue);
  if (v.arrayValue != null) return listOf((v.arrayValue as Tree).values).map(anyValue);
  if (v.kvlistValue != null) return attributesOf((v.kvlistValue as Tree).values);
  if (v.bytesValue != null) return idOf(v.bytesValue);
  return null;
}

export function attributesOf(list: unknown): Attributes {
  const out: Attributes = {};
  for (const kv of listOf(list)) {
    if (isTree(kv) && typeof kv.key === 'string') out[kv.key] = anyValue(kv.value);
  }
  return out;
}

/** Span flags (OTLP 1.1): bit 8 says whether bit 9 is known, bit 9 that the parent is remote. */
const PARENT_IS_REMOTE = 0x300;

const HEX_TRACE = /^[0-9a-f]{32}$/;
const HEX_SPAN = /^[0-9a-f]{16}$/;

/** The span, or why it cannot be read. */
function spanOf(raw: unknown, resource: Attributes): OtlpSpan | string {
  if (!isTree(raw)) return 'not a span';
  const traceId = idOf(raw.traceId);
  const spanId = idOf(raw.spanId);
  const parent = idOf(raw.parentSpanId);
  if (!HEX_TRACE.test(traceId) || /^0+$/.test(traceId)) return `traceId must be 16 bytes, not all zero (got "${traceId.slice(0, 40)}")`;
  if (!HEX_SPAN.test(spanId) || /^0+$/.test(spanId)) return `spanId must be 8 bytes, not all zero (got "${spanId.slice(0, 40)}")`;
  if (parent && !HEX_SPAN.test(parent)) return `parentSpanId must be 8 bytes (got "${parent.slice(0, 40)}")`;
  const status = isTree(raw.status) ? raw.status : {};
  // A parent in another process (the agent was called over a traced request) is not part of this
  // run's spans: the span roots the run here.
  const remoteParent = (int64(raw.flags) & PARENT_IS_REMOTE) === PARENT_IS_REMOTE;
  return {
    traceId,
    spanId,
    parentSpanId: parent && !/^0+$/.test(parent) && !remoteParent ? parent : null,
    name: typeof raw.name === 'string' ? raw.name : '',
    startMs: nanosToMs(raw.startTimeUnixNano),
    endMs: nanosToMs(raw.endTimeUnixNano),
    startUs: nanosToUs(raw.startTimeUnixNano),
    attributes: attributesOf(raw.attributes),
    status: { code: int64(status.code), message: typeof status.message === 'string' ? status.message : '' },
    events: listOf(raw.events).flatMap((e) => (isTree(e) ? [{ name: String(e.name ?? ''), attributes: attributesOf(e.attributes) }] : [])),
    resource,
  };
}

/** Every span of an export request, in request order, and those that could not be read (by position). */
export function spansOf(request: unknown): { spans: OtlpSpan[]; unreadable: UnreadableSpan[]; total: number } {
  if (!isTree(request)) badShape('the body is not an ExportTraceServiceRequest object');
  const spans: OtlpSpan[] = [];
  const unreadable: UnreadableSpan[] = [];
  let index = 0;
  // A decoded protobuf message always has the list (empty when absent); OTLP/JSON must name it.
  if (!Array.isArray(request.resourceSpans)) badShape('the body has no resourceSpans list (an ExportTraceServiceRequest holds one)');
  for (const rs of listOf(request.resourceSpans)) {
    if (!isTree(rs)) badShape('resourceSpans holds a non-object');
    const resource = attributesOf(isTree(rs.resource) ? rs.resource.attributes : []);
    for (const ss of listOf(rs.scopeSpans ?? rs.instrumentationLibrarySpans)) {
      if (!isTree(ss)) badShape('scopeSpans holds a non-object');
      for (const raw of listOf(ss.spans)) {
        const span = spanOf(raw, resource);
        if (typeof span === 'string') unreadable.push({ index, reason: span });
        else spans.push(span);
        index += 1;
      }
    }
  }
  return { spans, unreadable, total: index };
}
