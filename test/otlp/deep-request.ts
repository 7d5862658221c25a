// An ExportTraceServiceRequest in protobuf whose one span has an attribute value nested `depth`
// arrays deep, written byte by byte: protobufjs's encoder (as the SDK uses it) overflows its own
// stack long before 50,000 levels. Every message on the way holds the deeper one last, so the
// request is each message's fields up to its deeper one, outermost first, then the innermost value.
const varint = (n: number): number[] => {
  const out: number[] = [];
  for (; n > 127; n >>>= 7) out.push((n & 127) | 128);
  out.push(n);
  return out;
};

export function deepProtobufRequest(depth: number): Uint8Array<ArrayBuffer> {
  const headers: Buffer[] = [];
  let length = 0;
  /** What is built so far as field `number` (wire type 2) of a message, after `before` (its earlier fields). */
  const wrap = (number: number, before: Buffer = Buffer.alloc(0)) => {
    const header = Buffer.concat([before, Buffer.from([(number << 3) | 2, ...varint(length)])]);
    headers.push(header);
    length += header.length;
  };
  const field = (number: number, body: Buffer) => Buffer.concat([Buffer.from([(number << 3) | 2, ...varint(body.length)]), body]);
  // AnyValue.string_value = 1, the innermost value.
  const core = field(1, Buffer.from('x'));
  length = core.length;
  // ArrayValue.values = 1 inside AnyValue.array_value = 5, `depth` times.
  for (let i = 0; i < depth; i += 1) wrap(1), wrap(5);
  // KeyValue {key = 1, value = 2}; Span {trace_id = 1, span_id = 2, name = 5, attributes = 9}.
  wrap(2, field(1, Buffer.from('nested')));
  wrap(9, Buffer.concat([field(1, Buffer.alloc(16, 0x11)), field(2, Buffer.alloc(8, 0x22)), field(5, Buffer.from('deep'))]));
  // ScopeSpans.spans = 2; ResourceSpans.scope_spans = 2; ExportTraceServiceRequest.resource_spans = 1.
  wrap(2), wrap(2), wrap(1);
  return new Uint8Array(Buffer.concat([...headers.reverse(), core]));
}
