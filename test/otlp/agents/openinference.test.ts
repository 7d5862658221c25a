// OpenInference (@arizeai/openinference-instrumentation-openai) on the openai SDK: LLM spans with
// llm.* attributes, input.value/output.value, the chosen tool calls in llm.output_messages.
import { OpenAIInstrumentation } from '@arizeai/openinference-instrumentation-openai';
import type OpenAI from 'openai';
import { describeInstrumentedAgent } from './cases.ts';
import { freshOpenAI, runOpenAIAgent } from './openai-agent.ts';
import { setUpTelemetry } from './telemetry.ts';

describeInstrumentedAgent('OpenInference', async () => {
  const telemetry = setUpTelemetry('invoice-agent-openinference');
  const instrumentation = new OpenAIInstrumentation();
  instrumentation.setTracerProvider(telemetry.tracerProvider);
  const openai = freshOpenAI();
  // Declared to take the client class, it patches the module's OpenAI (module.OpenAI.Chat.Completions).
  instrumentation.manuallyInstrument(openai as unknown as typeof OpenAI);
  return {
    disable: () => instrumentation.disable(),
    entry: 'OpenInference',
    telemetry,
    run: (model, task, withRoot) => runOpenAIAgent(openai.OpenAI as typeof OpenAI, model.baseURL, task, withRoot).then(() => undefined),
    expectedKinds: (withRoot) => (withRoot ? ['llm_call', 'tool_call', 'llm_call', 'tool_call', 'llm_call'] : ['llm_call', 'llm_call', 'llm_call']),
  };
});
