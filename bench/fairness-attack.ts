// One attack of bench/fairness.ts, run in its own process so the attacker's CPU is not the
// server's event loop: `node --import tsx bench/fairness-attack.ts <name> <base-url> <token> <ms> <json-args>`.
// Prints one JSON line: answers counted by code (the first error code an answer names, else its
// HTTP status), and `bytes`, the answers' total size (what the attack really read).
const [name, base, token, msText, argsText] = process.argv.slice(2);
const until = Date.now() + Number(msText);
const args = JSON.parse(argsText ?? '{}') as Record<string, string>;
const codes = new Map<string, number>();
const count = (code: string) => codes.set(code, (codes.get(code) ?? 0) + 1);
let bytes = 0;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** How long a refused client waits before it sends again: 25 ms as the audit's clients did; BENCH_RETRY_MS=1000 honours `Retry-After: 1`. */
const RETRY_MS = Number(process.env.BENCH_RETRY_MS ?? 25);

async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  try {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers },
      body: JSON.stringify(body),
    });
    return { status: res.status, text: await res.text() };
  } catch {
    return { status: 0, text: '' };
  }
}

function codeOf(answer: { status: number; text: string }): string {
  if (answer.status === 0) return 'NO_ANSWER';
  bytes += answer.text.length;
  return /"code":"([A-Z_]+)"/.exec(answer.text)?.[1] ?? String(answer.status);
}

/** `n` loops until the end, each sending `once` again and again (a refused call waits RETRY_MS). */
async function loops(n: number, once: () => Promise<{ status: number; text: string }>): Promise<void> {
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (Date.now() < until) {
        const answer = await once();
        const code = codeOf(answer);
        count(code);
        if (answer.status >= 400 || answer.status === 0) await pause(RETRY_MS);
      }
    }),
  );
}

const STEPS = JSON.stringify(
  Array.from({ length: 25 }, (_, i) => ({ tool: 'sh', action: `step ${i}`, result: { kind: 'SUCCESS', output: 'ok '.repeat(40) } })),
);

async function writers(): Promise<void> {
  const start = 'mutation { startEpisode(input: { taskDescription: "flood", taskType: "bench" }) { ... on StartEpisodePayload { episode { id } } } }';
  await loops(Number(args.clients), async () => {
    const started = await post('/graphql', { query: start });
    const id = /"id":"([0-9a-f-]{36})"/.exec(started.text)?.[1];
    if (!id) return started;
    return post('/graphql', {
      query: `mutation($e: ID!) { logSteps(episodeId: $e, steps: ${STEPS.replace(/"(\w+)":/g, '$1:').replace(/kind:"SUCCESS"/g, 'kind: SUCCESS')}) { __typename } }`,
      variables: { e: id },
    });
  });
}

function otlpBody(spans: number): unknown {
  const hex = (n: number) => Array.from({ length: n }, () => Math.floor(Math.random() * 16).toString(16)).join('');
  const traceId = hex(32);
  const root = hex(16);
  const now = BigInt(Date.now()) * 1_000_000n;
  const span = (spanId: string, parent: string | undefined, i: number) => ({
    traceId,
    spanId,
    ...(parent ? { parentSpanId: parent } : {}),
    name: parent ? `execute_tool sh ${i}` : 'invoke_agent bench',
    kind: 1,
    startTimeUnixNano: String(now + BigInt(i) * 1000n),
    endTimeUnixNano: String(now + BigInt(i) * 1000n + 500n),
    attributes: parent
      ? [
          { key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } },
          { key: 'gen_ai.tool.name', value: { stringValue: 'sh' } },
        ]
      : [{ key: 'gen_ai.operation.name', value: { stringValue: 'invoke_agent' } }],
    status: { code: 1 },
  });
  const all = [span(root, undefined, 0), ...Array.from({ length: spans - 1 }, (_, i) => span(hex(16), root, i + 1))];
  return { resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'bench' } }] }, scopeSpans: [{ spans: all }] }] };
}

async function main(): Promise<void> {
  if (name === 'clients600') await writers();
  else if (name === 'aliased_inline') {
    const query = `{ ${Array.from({ length: 30 }, (_, i) => `e${i}: episode(id: "${args.episodeId}") { ... on Episode { steps(first: 333) { edges { node { result } } } } }`).join(' ')} }`;
    await loops(1, () => post('/graphql', { query }));
  } else if (name === 'blob64') {
    const query = `{ blob(hash: "${args.hash}") { ... on Blob { content } } }`;
    await loops(64, () => post('/graphql', { query }));
  } else if (name === 'otlp16') {
    await loops(16, () => post('/v1/traces', otlpBody(500)));
  } else if (name === 'aliased_relevant8') {
    // The same retrievals as mcp8 over GraphQL: 8 clients, each request 30 aliased relevantEpisodes (MAX_ALIASES).
    const query = `{ ${Array.from({ length: 30 }, (_, i) => `r${i}: relevantEpisodes(task: { description: "fix the failing parser test ${i}" }) { ... on RelevantEpisodes { episodes { failed } } }`).join(' ')} }`;
    await loops(8, () => post('/graphql', { query }));
  } else if (name === 'mcp8') {
    const batch = Array.from({ length: 100 }, (_, i) => ({
      jsonrpc: '2.0',
      id: i,
      method: 'tools/call',
      params: { name: 'relevant_episodes', arguments: { task: `fix the failing parser test ${i}` } },
    }));
    await loops(8, () => post('/mcp', batch, { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-03-26' }));
  } else throw new Error(`unknown attack ${name}`);
  console.log(JSON.stringify({ ...Object.fromEntries(codes), bytes }));
}

await main();
