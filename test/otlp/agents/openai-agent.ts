// A 3-call tool-calling agent on the real `openai` SDK, as a user writes one: chat completions with
// tools, each tool call the model chooses run and answered, until the model answers in text.
import { createRequire } from 'node:module';
import { sep } from 'node:path';
import type OpenAI from 'openai';
import { MODEL, SCRIPT } from './fake-model.ts';
import { inAgentSpan, inToolSpan } from './telemetry.ts';

const TOOLS = SCRIPT.map((s) => ({
  type: 'function' as const,
  function: { name: s.name, description: `runs ${s.name}`, parameters: { type: 'object', properties: {}, additionalProperties: true } },
}));

function runTool(name: string, args: string): string {
  const known = SCRIPT.find((s) => s.name === name);
  return known ? known.result : `unknown tool ${name} (${args})`;
}

export async function runOpenAIAgent(
  OpenAIClass: typeof OpenAI,
  baseURL: string,
  task: string,
  withRoot: boolean,
  rootAttributes: Record<string, string> = {},
): Promise<string> {
  const client = new OpenAIClass({ baseURL, apiKey: 'sk-test' });
  return inAgentSpan(
    withRoot,
    async () => {
      const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
        { role: 'system', content: 'You are a coding agent. Use the tools.' },
        { role: 'user', content: task },
      ];
      for (let call = 0; call < 5; call += 1) {
        const answer = await client.chat.completions.create({ model: MODEL, messages, tools: TOOLS });
        const message = answer.choices[0]?.message;
        if (!message) throw new Error('no choice');
        messages.push(message);
        const calls = message.tool_calls ?? [];
        if (!calls.length) return message.content ?? '';
        for (const tc of calls) {
          if (tc.type !== 'function') continue;
          const args = JSON.parse(tc.function.arguments) as object;
          const content = await inToolSpan(withRoot, tc.function.name, args, () => runTool(tc.function.name, tc.function.arguments));
          messages.push({ role: 'tool', tool_call_id: tc.id, content });
        }
      }
      throw new Error('the agent did not finish');
    },
    rootAttributes,
  );
}

/**
 * A copy of the openai package of its own: test files share a worker process, and an earlier file's
 * instrumentation patched the copy it loaded; each library instruments the copy it is given.
 */
export function freshOpenAI(): typeof import('openai') {
  const require = createRequire(import.meta.url);
  for (const key of Object.keys(require.cache)) if (key.includes(`${sep}node_modules${sep}openai${sep}`)) delete require.cache[key];
  return require('openai') as typeof import('openai');
}
