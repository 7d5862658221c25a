// Agent runs recorded as the OpenInference instrumentation writes them (@arizeai/openinference-
// instrumentation-openai on the openai SDK, under an AGENT span of the user's): every LLM span
// carries the messages it was sent (llm.input_messages.N.*, and the request again as input.value),
// the answer with its tool call (llm.output_messages.0.message.tool_calls.0.*, output.value),
// llm.model_name and llm.token_count.*; every TOOL span tool.name, input.value, output.value.
// The history a call is sent is the system prompt, the task and the last HISTORY messages (a real
// agent sends it all, and its spans grow with the run; the window keeps a 100-span run near 0.5 MB).
import { context, type Span, SpanStatusCode, trace } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { AgentRun } from '../test/otlp/support.ts';

const HISTORY = 8;
const MODEL = 'gpt-4o-mini-2024-07-18';

interface ChatMessage {
  role: string;
  content: string;
  toolCall?: { id: string; name: string; arguments: string };
  toolCallId?: string;
}

function messageAttributes(prefix: string, messages: ChatMessage[]): Record<string, string> {
  const out: Record<string, string> = {};
  messages.forEach((m, i) => {
    const p = `${prefix}.${i}.message`;
    out[`${p}.role`] = m.role;
    if (m.content) out[`${p}.content`] = m.content;
    if (m.toolCallId) out[`${p}.tool_call_id`] = m.toolCallId;
    if (m.toolCall) {
      out[`${p}.tool_calls.0.tool_call.id`] = m.toolCall.id;
      out[`${p}.tool_calls.0.tool_call.function.name`] = m.toolCall.name;
      out[`${p}.tool_calls.0.tool_call.function.arguments`] = m.toolCall.arguments;
    }
  });
  return out;
}

const wire = (m: ChatMessage) => ({
  role: m.role,
  content: m.content || null,
  ...(m.toolCall ? { tool_calls: [{ id: m.toolCall.id, type: 'function', function: { name: m.toolCall.name, arguments: m.toolCall.arguments } }] } : {}),
  ...(m.toolCallId ? { tool_call_id: m.toolCallId } : {}),
});

/** Each run one trace: an AGENT root, then per turn an LLM span (choosing the next tool) and the TOOL span that runs it. */
export function recordOpenInferenceRuns(service: string, runs: AgentRun[], baseTime = Date.now() - 60_000): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ resource: resourceFromAttributes({ 'service.name': service }), spanProcessors: [new SimpleSpanProcessor(memory)] });
  const tracer = provider.getTracer('@arizeai/openinference-instrumentation-openai');
  runs.forEach((run, r) => {
    let t = baseTime + r * 10;
    const at = () => (t += 1);
    const root = tracer.startSpan(`${run.agent} run`, {
      startTime: at(),
      attributes: { 'openinference.span.kind': 'AGENT', 'input.value': run.task, 'input.mime_type': 'text/plain', 'session.id': `bench-session-${r % 5}` },
    });
    const ctx = trace.setSpan(context.active(), root);
    const system: ChatMessage = { role: 'system', content: 'You are a coding agent. Use the tools to inspect and change the repository, then answer.' };
    const user: ChatMessage = { role: 'user', content: run.task };
    const history: ChatMessage[] = [];
    const turns = Math.max(run.chats ?? 1, run.tools.length);
    for (let k = 0; k < turns; k += 1) {
      const tool = run.tools[k];
      const sent = [system, user, ...history.slice(-HISTORY)];
      const answer: ChatMessage = tool
        ? { role: 'assistant', content: '', toolCall: { id: `call_${r}_${k}`, name: tool.name, arguments: JSON.stringify(tool.args) } }
        : { role: 'assistant', content: `Done: the cache now evicts by last use; turn ${k} of run ${r} checked the hit rate.` };
      if (k < (run.chats ?? 1)) {
        const llm = tracer.startSpan('ChatCompletion', { startTime: at() }, ctx);
        const promptTokens = 400 + 60 * sent.length;
        llm.setAttributes({
          'openinference.span.kind': 'LLM',
          'llm.provider': 'openai',
          'llm.system': 'openai',
          'llm.model_name': MODEL,
          'llm.invocation_parameters': JSON.stringify({ model: 'gpt-4o-mini', tools: run.tools.length ? 3 : 0 }),
          'input.value': JSON.stringify({ model: 'gpt-4o-mini', messages: sent.map(wire) }),
          'input.mime_type': 'application/json',
          ...messageAttributes('llm.input_messages', sent),
          ...messageAttributes('llm.output_messages', [answer]),
          'output.value': JSON.stringify({
            id: `chatcmpl-${r}-${k}`,
            object: 'chat.completion',
            model: MODEL,
            choices: [{ index: 0, message: wire(answer), finish_reason: tool ? 'tool_calls' : 'stop' }],
          }),
          'output.mime_type': 'application/json',
          'llm.token_count.prompt': promptTokens,
          'llm.token_count.completion': 24,
          'llm.token_count.total': promptTokens + 24,
        });
        llm.setStatus({ code: SpanStatusCode.OK });
        llm.end(at());
      }
      history.push(answer);
      if (!tool) continue;
      const span: Span = tracer.startSpan(tool.name, { startTime: at() }, ctx);
      span.setAttributes({
        'openinference.span.kind': 'TOOL',
        'tool.name': tool.name,
        'input.value': JSON.stringify(tool.args),
        'input.mime_type': 'application/json',
      });
      if (tool.error) span.setStatus({ code: SpanStatusCode.ERROR, message: tool.error });
      else span.setAttributes({ 'output.value': tool.result }).setStatus({ code: SpanStatusCode.OK });
      span.end(at());
      history.push({ role: 'tool', content: tool.error ?? tool.result, toolCallId: `call_${r}_${k}` });
    }
    if (run.outcome === 'failure') root.setStatus({ code: SpanStatusCode.ERROR, message: 'tests still fail' });
    else if (run.outcome === 'success') root.setStatus({ code: SpanStatusCode.OK });
    root.setAttribute('output.value', 'The cache eviction policy is tuned.');
    root.end(at());
  });
  return memory.getFinishedSpans();
}
