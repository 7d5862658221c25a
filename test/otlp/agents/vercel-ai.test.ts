// The Vercel AI SDK (`ai` with @ai-sdk/openai) with experimental_telemetry: generateText is the
// agent-level span (ai.generateText: the episode, or a sub-agent step under a user's root), each
// model call an ai.generateText.doGenerate span, each tool call an ai.toolCall span.
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { describeInstrumentedAgent } from './cases.ts';
import { MODEL, SCRIPT } from './fake-model.ts';
import { inAgentSpan, setUpTelemetry } from './telemetry.ts';

const result = (name: string) => SCRIPT.find((s) => s.name === name)?.result ?? '';

describeInstrumentedAgent('Vercel AI SDK', async () => {
  const telemetry = setUpTelemetry('invoice-agent-vercel');
  return {
    // The SDK traces through the tracer it is given per call: nothing stays patched.
    disable: () => undefined,
    entry: 'Vercel AI SDK',
    telemetry,
    async run(model, task, withRoot) {
      const openai = createOpenAI({ baseURL: model.baseURL, apiKey: 'sk-test' });
      await inAgentSpan(withRoot, () =>
        generateText({
          model: openai.chat(MODEL),
          system: 'You are a coding agent. Use the tools.',
          prompt: task,
          stopWhen: stepCountIs(5),
          experimental_telemetry: { isEnabled: true, functionId: 'invoice-fixer' },
          tools: {
            bash: tool({ description: 'runs a command', inputSchema: z.object({ command: z.string() }), execute: async () => result('bash') }),
            read_file: tool({ description: 'reads a file', inputSchema: z.object({ path: z.string() }), execute: async () => result('read_file') }),
          },
        }),
      );
    },
    expectedKinds: (withRoot) => [...(withRoot ? ['agent_call'] : []), 'llm_call', 'tool_call', 'llm_call', 'tool_call', 'llm_call'],
  };
});
