// A runnable agent against a local server:   npm start   (in another terminal), then
//   npx tsx examples/agent.ts
// It reads the key from EPISODIC_API_KEY or .episodic/admin-key (EPISODIC_DATA_DIR) and the URL
// from EPISODIC_URL (default http://localhost:4000/graphql). It asks for relevant past episodes
// (skipped when the server's schema has no relevantEpisodes), runs the episode loop with a
// toy holon under a lease, prints the outcome, and verifies the first episode's proof bundle offline.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { clientEnv } from '../src/config.ts';
import { must } from '../src/core/must.ts';
import { createEpisodicClient, type EpisodicClient, EpisodicError, type Holon, runEpisodeLoop, unwrap, verifyProofBundle } from '../src/index.ts';
import { fromHex } from '../src/ledger/format/hash.ts';

const env = clientEnv();
const url = env.url ?? 'http://localhost:4000/graphql';
const apiKey = env.apiKey ?? readFileSync(join(env.dataDir, 'admin-key'), 'utf8').trim();
const client: EpisodicClient = createEpisodicClient({ url, apiKey });

const task = {
  taskDescription: 'Count to a target in small increments',
  taskType: 'counting',
  agent: 'example-agent',
  context: { tags: ['example'], domain: 'arithmetic' },
};
const TARGET = 5;

/** The toy holon: each episode adds up to 2 to the count; it stops once the target is reached. */
const counter: Holon<number> = {
  executeEpisode({ progress = 0, episodeNumber }) {
    const steps = [];
    let count = progress;
    for (let i = 0; i < 2 && count < TARGET; i++) {
      steps.push({
        kind: 'tool_call',
        tool: 'calculator',
        action: `add 1 to ${count}`,
        parameters: { a: count, b: 1 },
        result: { kind: 'SUCCESS' as const, output: String(count + 1) },
        worldBefore: { count },
        worldAfter: { count: count + 1 },
        tokens: 40,
      });
      count += 1;
    }
    console.log(`  episode ${episodeNumber}: count ${progress} -> ${count}`);
    return { steps, output: count, stop: count >= TARGET ? { kind: 'completed' as const } : null };
  },
};

/** Past episodes like this task, when the server has retrieval; null when its schema lacks relevantEpisodes. */
async function askRelevantEpisodes(): Promise<{ retrievalId: string; lines: string[] } | null> {
  try {
    const answer = unwrap(
      await client.relevantEpisodes({ task: { description: task.taskDescription, taskType: task.taskType, context: task.context }, limit: 3 }),
    );
    const lines = answer.episodes.map(({ episode, score }) => `${score.total.toFixed(3)}  ${episode.id}  ${episode.taskDescription}`);
    return { retrievalId: answer.retrievalId, lines };
  } catch (err) {
    if (err instanceof EpisodicError && err.kind === 'graphql' && /relevantEpisodes/.test(err.message)) return null;
    throw err;
  }
}

const viewer = await client.viewer();
console.log(`connected to ${url} as tenant ${viewer.name}`);

const relevant = await askRelevantEpisodes();
if (!relevant) console.log('relevant past episodes: skipped (this server has no relevantEpisodes query)');
else console.log(`relevant past episodes: ${relevant.lines.length}${relevant.lines.map((l) => `\n  ${l}`).join('')}`);

const workItem = unwrap(await client.createWorkItem({ title: 'count to five' })).workItem;
const lease = unwrap(
  await client.issueLease({
    workItemId: workItem.id,
    issuer: 'example',
    holder: 'example-agent',
    expiresAt: new Date(Date.now() + 3_600_000),
    budget: { episodes: 10, tokens: 10_000 },
  }),
).lease;

// The retrieval is credited if the work succeeds (and debited if it fails): that is how ranking learns.
const usedRetrievals = relevant?.lines.length ? [relevant.retrievalId] : undefined;
const result = await runEpisodeLoop(client, counter, workItem.id, lease, `reach ${TARGET}`, 1, { task, maxEpisodes: 10, usedRetrievals });
console.log(`outcome: ${JSON.stringify(result.outcome)}`);
console.log(`isSuccessful: ${result.isSuccessful}, canContinue: ${result.canContinue}, next episode number: ${result.nextEpisodeNumber}`);

// Proofs are served against signed checkpoints only (one every 10 s by default): wait for the next.
let proved = await client.episodeProofBundle(must(result.episodes[0]).id);
while (proved.__typename === 'NotCheckpointedError') {
  await new Promise((r) => setTimeout(r, 1_000));
  proved = await client.episodeProofBundle(must(result.episodes[0]).id);
}
const bundle = unwrap(proved).bundle;
// Trust the key as far as this connection (docs/LEDGER.md §5.2), never the bundle's own copy.
const trusted = await client.ledgerPublicKey();
const report = verifyProofBundle(bundle, fromHex(trusted.publicKey, 32));
console.log(`first episode's proof bundle verified offline: ${report.ok} (${report.eventsChecked} events)`);
