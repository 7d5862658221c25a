// OTLP/HTTP log export bodies (ExportLogsServiceRequest), protobuf or JSON. The generated root that
// decodes traces (codec.ts) carries no logs messages, so the few logs messages are described here
// from opentelemetry-proto (logs/v1/logs.proto, common/v1/common.proto: field numbers and types as
// published) and decoded with protobufjs's reflection; field names are OTLP/JSON's camelCase, so
// both formats read into the same tree.
import protobuf from 'protobufjs';
import type { BodyFormat } from './codec.ts';
import { MalformedRequestError } from './spans.ts';

const f = (id: number, type: string, rule?: 'repeated') => ({ id, type, ...(rule ? { rule } : {}) });

const root = protobuf.Root.fromJSON({
  nested: {
    otlp: {
      nested: {
        AnyValue: {
          oneofs: { value: { oneof: ['stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue', 'kvlistValue', 'bytesValue'] } },
          fields: {
            stringValue: f(1, 'string'),
            boolValue: f(2, 'bool'),
            intValue: f(3, 'int64'),
            doubleValue: f(4, 'double'),
            arrayValue: f(5, 'ArrayValue'),
            kvlistValue: f(6, 'KeyValueList'),
            bytesValue: f(7, 'bytes'),
          },
        },
        ArrayValue: { fields: { values: f(1, 'AnyValue', 'repeated') } },
        KeyValueList: { fields: { values: f(1, 'KeyValue', 'repeated') } },
        KeyValue: { fields: { key: f(1, 'string'), value: f(2, 'AnyValue') } },
        Resource: { fields: { attributes: f(1, 'KeyValue', 'repeated') } },
        InstrumentationScope: { fields: { name: f(1, 'string'), version: f(2, 'string') } },
        LogRecord: {
          fields: {
            timeUnixNano: f(1, 'fixed64'),
            severityNumber: f(2, 'int32'),
            severityText: f(3, 'string'),
            body: f(5, 'AnyValue'),
            attributes: f(6, 'KeyValue', 'repeated'),
            flags: f(8, 'fixed32'),
            traceId: f(9, 'bytes'),
            spanId: f(10, 'bytes'),
            observedTimeUnixNano: f(11, 'fixed64'),
            eventName: f(12, 'string'),
          },
        },
        ScopeLogs: { fields: { scope: f(1, 'InstrumentationScope'), logRecords: f(2, 'LogRecord', 'repeated') } },
        ResourceLogs: { fields: { resource: f(1, 'Resource'), scopeLogs: f(2, 'ScopeLogs', 'repeated') } },
        ExportLogsServiceRequest: { fields: { resourceLogs: f(1, 'ResourceLogs', 'repeated') } },
        ExportLogsPartialSuccess: { fields: { rejectedLogRecords: f(1, 'int64'), errorMessage: f(2, 'string') } },
        ExportLogsServiceResponse: { fields: { partialSuccess: f(1, 'ExportLogsPartialSuccess') } },
      },
    },
  },
});

const requestType = root.lookupType('otlp.ExportLogsServiceRequest');
const responseType = root.lookupType('otlp.ExportLogsServiceResponse');

/** The logs request as a camelCase tree; MalformedRequestError when it cannot be decoded. */
export function decodeLogsRequest(body: Buffer, format: BodyFormat): unknown {
  try {
    if (format === 'json') return JSON.parse(body.toString('utf8'));
    // A plain tree without defaults: a decoded message answers every unset oneof field with its default ('' for stringValue).
    return requestType.toObject(requestType.decode(body), { longs: String, defaults: false });
  } catch (err) {
    throw new MalformedRequestError(`the body is not an ExportLogsServiceRequest in ${format}: ${(err as Error).message}`);
  }
}

export interface LogsPartialSuccess {
  rejectedLogRecords: number;
  errorMessage: string;
}

export function encodeLogsResponse(format: BodyFormat, partial: LogsPartialSuccess | null): Buffer {
  const response = partial ? { partialSuccess: partial } : {};
  if (format === 'json') return Buffer.from(JSON.stringify(response));
  return Buffer.from(responseType.encode(responseType.fromObject(response)).finish());
}
