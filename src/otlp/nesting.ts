// How deeply an export request's attribute values nest (AnyValue's arrayValue and kvlistValue),
// measured before the request is decoded or read: the protobuf decoder and the span reader recurse
// once per level, so a value nested 50,000 deep overflowed the stack (a 500, or a dropped
// connection). Both walks are iterative. A deeper request is refused whole (400), as a body that
// does not decode. Pure.
import { JSON_DEPTH } from '../validation/json.ts';
import { MalformedRequestError } from './spans.ts';

/** Levels of arrays and key-value lists in one attribute value: as deep as any stored JSON may nest. */
const ATTRIBUTE_NESTING = JSON_DEPTH;

const tooDeep = () => new MalformedRequestError(`an attribute value nests arrays/kvlists deeper than ${ATTRIBUTE_NESTING} levels (the limit)`);

type Message = 'request' | 'resourceSpans' | 'resource' | 'scopeSpans' | 'scope' | 'span' | 'event' | 'link' | 'keyValue' | 'anyValue' | 'list';

/** The message-typed fields (by field number) on the way from the request to every AnyValue (opentelemetry-proto). */
const MESSAGE_FIELDS: Record<Message, Partial<Record<number, Message>>> = {
  request: { 1: 'resourceSpans' },
  resourceSpans: { 1: 'resource', 2: 'scopeSpans' },
  resource: { 1: 'keyValue' },
  scopeSpans: { 1: 'scope', 2: 'span' },
  scope: { 3: 'keyValue' },
  span: { 9: 'keyValue', 11: 'event', 13: 'link' },
  event: { 3: 'keyValue' },
  link: { 4: 'keyValue' },
  keyValue: { 2: 'anyValue' },
  // arrayValue and kvlistValue: each is one more level.
  anyValue: { 5: 'list', 6: 'list' },
  // ArrayValue.values (AnyValue) and KeyValueList.values (KeyValue) are both field 1.
  list: { 1: 'anyValue' },
};

interface Open {
  type: Message;
  end: number;
  levels: number;
}

/**
 * Throws MalformedRequestError when an attribute value of the protobuf request nests past
 * ATTRIBUTE_NESTING. Bytes that are no valid wire format end the walk quietly: the decoder reports them.
 */
export function checkProtobufNesting(body: Uint8Array): void {
  const stack: Open[] = [{ type: 'request', end: body.length, levels: 0 }];
  let pos = 0;
  const varint = (): number => {
    let value = 0;
    for (let shift = 0; pos < body.length && shift < 35; shift += 7) {
      const byte = body[pos++] as number;
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
    return Number.NaN;
  };
  while (pos < body.length) {
    while (pos >= (stack.at(-1) as Open).end) stack.pop();
    const open = stack.at(-1) as Open;
    const tag = varint();
    const wire = tag % 8;
    if (wire === 0) varint();
    else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else if (wire === 2) {
      const length = varint();
      if (!Number.isFinite(length) || pos + length > open.end) return;
      const child = MESSAGE_FIELDS[open.type][Math.floor(tag / 8)];
      if (!child) pos += length;
      else {
        const levels = open.levels + (open.type === 'anyValue' ? 1 : 0);
        if (levels > ATTRIBUTE_NESTING) throw tooDeep();
        stack.push({ type: child, end: pos + length, levels });
      }
    } else return;
  }
}

/** The same limit on an OTLP/JSON request, once parsed (JSON.parse itself does not recurse). */
export function checkJsonNesting(request: unknown): void {
  const pending: Array<[unknown, number]> = [[request, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, levels] = next;
    if (value === null || typeof value !== 'object') continue;
    const deeper = !Array.isArray(value) && ('arrayValue' in value || 'kvlistValue' in value) ? levels + 1 : levels;
    if (deeper > ATTRIBUTE_NESTING) throw tooDeep();
    for (const item of Object.values(value)) pending.push([item, deeper]);
  }
}
