// OTLP/HTTP bodies: the request decoded from protobuf (the official opentelemetry-proto messages,
// as generated with protobufjs and shipped by @opentelemetry/otlp-transformer) or from OTLP/JSON,
// gunzipped first when sent with Content-Encoding: gzip; the answer encoded in the request's own
// content type, as the OTLP specification requires.
import { createRequire } from 'node:module';
import { gunzipSync } from 'node:zlib';
import protobuf from 'protobufjs/minimal.js';
import { checkJsonNesting, checkProtobufNesting } from './nesting.ts';
import { MalformedRequestError } from './spans.ts';

interface MessageType {
  decode(bytes: Uint8Array): protobuf.Message;
  encode(message: object): protobuf.Writer;
  toObject(message: protobuf.Message, options: protobuf.IConversionOptions): Record<string, unknown>;
}

interface OtlpRoot {
  opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: MessageType; ExportTraceServiceResponse: MessageType } } } } };
}

// The package ships the generated root as CommonJS without types of its messages.
const root = createRequire(import.meta.url)('@opentelemetry/otlp-transformer/build/src/generated/root.js') as OtlpRoot;
const messages = root.opentelemetry.proto.collector.trace.v1;

export type BodyFormat = 'protobuf' | 'json';

/** The body format of a Content-Type, or null when OTLP/HTTP does not define it (415). */
export function formatOf(contentType: string | undefined): BodyFormat | null {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  if (type === 'application/x-protobuf' || type === 'application/protobuf') return 'protobuf';
  if (type === 'application/json') return 'json';
  return null;
}

export const CONTENT_TYPES: Record<BodyFormat, string> = { protobuf: 'application/x-protobuf', json: 'application/json' };

/** The body as sent, inflated when gzipped, never past `maxBytes` (a gzip bomb is refused, not inflated). */
export function inflate(body: Buffer, encoding: string | undefined, maxBytes: number): Buffer {
  const coding = (encoding ?? 'identity').trim().toLowerCase();
  if (coding === 'identity' || coding === '') return body;
  if (coding !== 'gzip') throw new MalformedRequestError(`Content-Encoding ${coding} is not supported: send gzip or none`);
  try {
    return gunzipSync(body, { maxOutputLength: maxBytes });
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ERR_BUFFER_TOO_LARGE') throw new MalformedRequestError(`the inflated body is larger than ${maxBytes} bytes`);
    throw new MalformedRequestError(`the gzip body cannot be inflated: ${(err as Error).message}`);
  }
}

/** The request as a camelCase tree (spans.ts reads it); MalformedRequestError when it cannot be decoded. */
export function decodeRequest(body: Buffer, format: BodyFormat): unknown {
  if (format === 'json') {
    let request: unknown;
    try {
      request = JSON.parse(body.toString('utf8'));
    } catch (err) {
      throw new MalformedRequestError(`the body is not JSON: ${(err as Error).message}`);
    }
    checkJsonNesting(request);
    return request;
  }
  checkProtobufNesting(body);
  try {
    return messages.ExportTraceServiceRequest.decode(body);
  } catch (err) {
    throw new MalformedRequestError(`the body is not an ExportTraceServiceRequest in protobuf: ${(err as Error).message}`);
  }
}

export interface PartialSuccess {
  rejectedSpans: number;
  errorMessage: string;
}

/** ExportTraceServiceResponse: partialSuccess only when something was rejected (or a warning is due). */
export function encodeResponse(format: BodyFormat, partial: PartialSuccess | null): Buffer {
  const response = partial ? { partialSuccess: partial } : {};
  if (format === 'json') return Buffer.from(JSON.stringify(response));
  return Buffer.from(messages.ExportTraceServiceResponse.encode(response).finish());
}

/** google.rpc.Status {code = 1, message = 2}, the body OTLP/HTTP answers a failure with. */
export function encodeStatus(format: BodyFormat, code: number, message: string): Buffer {
  if (format === 'json') return Buffer.from(JSON.stringify({ code, message }));
  // Two scalar fields: written with protobufjs's own writer (the generated root has no Status).
  return Buffer.from(protobuf.Writer.create().uint32(8).int32(code).uint32(18).string(message).finish());
}
