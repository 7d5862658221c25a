// The GenAI semantic conventions as the official @opentelemetry/instrumentation-openai emits them:
// chat spans with gen_ai.* attributes, the messages as log events over OTLP logs (/v1/logs). The
// instrumentation patches `openai` as Node loads it (require-in-the-middle), so the SDK is required
// after the instrumentation is enabled.
import { OpenAIInstrumentation } from '@opentelemetry/instrumentation-openai';
import type OpenAI from 'openai';
import { describeInstrumentedAgent } from './cases.ts';
import { freshOpenAI, runOpenAIAgent } from './openai-agent.ts';
import { setUpTelemetry } from './telemetry.ts';

describeInstrumentedAgent('GenAI semantic conventions', async () => {
  const telemetry = setUpTelemetry('invoice-agent-genai');
  const instrumentation = new OpenAIInstrumentation({ captureMessageContent: true });
  instrumentation.setTracerProvider(telemetry.tracerProvider);
  instrumentation.setLoggerProvider(telemetry.loggerProvider);
  instrumentation.enable();
  const openai = freshOpenAI();
  return {
    disable: () => instrumentation.disable(),
    entry: 'GenAI semantic conventions',
    telemetry,
    run: (model, task, withRoot) => runOpenAIAgent(openai.OpenAI as typeof OpenAI, model.baseURL, task, withRoot).then(() => undefined),
    expectedKinds: (withRoot) => (withRoot ? ['llm_call', 'tool_call', 'llm_call', 'tool_call', 'llm_call'] : ['llm_call', 'llm_call', 'llm_call']),
  };
});
