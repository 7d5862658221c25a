// OpenLLMetry (@traceloop/instrumentation-openai) on the openai SDK: chat spans with the GenAI
// attributes (gen_ai.input.messages / gen_ai.output.messages with tool_call parts in this version).
import { OpenAIInstrumentation } from '@traceloop/instrumentation-openai';
import type OpenAI from 'openai';
import { describeInstrumentedAgent } from './cases.ts';
import { freshOpenAI, runOpenAIAgent } from './openai-agent.ts';
import { setUpTelemetry } from './telemetry.ts';

describeInstrumentedAgent('OpenLLMetry', async () => {
  const telemetry = setUpTelemetry('invoice-agent-openllmetry');
  const instrumentation = new OpenAIInstrumentation({ traceContent: true });
  instrumentation.setTracerProvider(telemetry.tracerProvider);
  const openai = freshOpenAI();
  // The instrumentation patches the client class's Chat.Completions.
  instrumentation.manuallyInstrument(openai.OpenAI);
  return {
    disable: () => instrumentation.disable(),
    entry: 'OpenLLMetry',
    telemetry,
    run: (model, task, withRoot) => runOpenAIAgent(openai.OpenAI as typeof OpenAI, model.baseURL, task, withRoot).then(() => undefined),
    expectedKinds: (withRoot) => (withRoot ? ['llm_call', 'tool_call', 'llm_call', 'tool_call', 'llm_call'] : ['llm_call', 'llm_call', 'llm_call']),
  };
});
