// episodic tail | export: the ledger from a shell. tail streams live events over graphql-ws,
// resuming after reconnects and verifying the chain as it goes; export writes a range as JSON
// lines (or an episode's proof bundle) that `episodic verify` checks offline.

import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import type { EpisodicClient } from '../client/client.ts';
import type { EpisodicError } from '../client/errors.ts';
import type { EpisodeProofBundleResult, LedgerEvent, SignedTreeHead } from '../client/types.ts';
import { EXPORT_FORMAT } from '../ledger/format/export-format.ts';
import type { StoredLedgerEvent } from '../ledger/format/hash.ts';
import type { RowClaims } from '../ledger/format/row-claims.ts';
import { defineCommand, failOnErrorResult, intOption, listOption, usage } from './remote.ts';

const TAIL_HELP = `Usage: episodic tail [--after <seq>] [--verify] [filters]
Streams ledger events as they are written, one per line (JSON lines with --json), until Ctrl-C.
Reconnects by itself and resumes after the last event shown; nothing is shown twice.
  --after <seq>       start after this seq (default: the current head, i.e. only new events;
                      --after 0 replays the whole ledger first)
  --verify            check the hash chain of every event as it arrives (exit 3 on a break)
  --episode <id>, --work-item <id>, --type <type> (repeatable)
                      only these events (filtered streams check each event's own hash)
  --count <n>         exit after n events
On exit it prints the last seq to stderr: resume with --after <seq>.`;

const EXPORT_HELP = `Usage: episodic export [--after <seq>] [--to <seq>] [--output <file>]
       episodic export --episode <id> [--output <file>]
Writes a ledger export (docs/LEDGER.md §6.2) as JSON lines to stdout or a file: a header, every
signed checkpoint, then the events in seq order; check it with
\`episodic verify --public-key <hex> <file>\`. After --after <size>, it also carries the proof
that the newest checkpoint extends the tree of that size: \`episodic verify --state <file>\`
then checks only what is new. With --episode, writes the episode's proof bundle
(its events and step rows with inclusion proofs against the latest signed checkpoint) instead,
waiting for the next checkpoint when the episode's last events are newer.`;

/** Capped exponential backoff for reconnects: 0.5 s, 1 s, 2 s, ... at most 10 s. */
const backoff = (retries: number) => new Promise<void>((r) => setTimeout(r, Math.min(500 * 2 ** retries, 10_000) + Math.random() * 250));

function line(e: LedgerEvent): string {
  return `${e.seq}\t${e.type}\t${e.episodeId ?? e.workItemId ?? '-'}\t${e.hash.slice(0, 16)}`;
}

export const tailCommand = defineCommand({
  name: 'tail',
  summary: 'stream live ledger events (resumable, --verify)',
  help: TAIL_HELP,
  options: {
    after: { type: 'string' },
    verify: { type: 'boolean' },
    episode: { type: 'string' },
    'work-item': { type: 'string' },
    type: { type: 'string', multiple: true },
    count: { type: 'string' },
  },
  async run({ values: v, json, client, io }) {
    const count = intOption(v.count, '--count', TAIL_HELP, 1);
    const types = listOption(v.type);
    const filter = v.episode || v['work-item'] || types ? { episodeId: v.episode, workItemId: v['work-item'], types } : undefined;
    let afterSeq = intOption(v.after, '--after', TAIL_HELP);
    let prevHash: string | undefined;
    if (afterSeq === undefined) {
      const head = await client.ledgerHead();
      afterSeq = Number(head.seq);
      prevHash = head.hash ?? undefined;
    }
    let seen = 0;
    let failure: EpisodicError | undefined;
    // One line per outage, not one per retry: the retries of a server that stays down say nothing new.
    let down = false;
    const sub = client.subscribeLedger({
      afterSeq,
      prevHash,
      filter,
      verify: Boolean(v.verify),
      retryWait: backoff,
      onConnected: ({ reconnect, afterSeq: at }) => {
        down = false;
        io.stderr.write(reconnect ? `episodic: reconnected, resuming after seq ${at}\n` : `episodic: following the ledger after seq ${at} (Ctrl-C to stop)\n`);
      },
      onDisconnected: ({ reason, afterSeq: at }) => {
        if (!down) io.stderr.write(`episodic: disconnected (${reason}) after seq ${at}; reconnecting until it answers\n`);
        down = true;
      },
      onEvent: (event) => {
        io.stdout.write(`${json ? JSON.stringify(event) : line(event)}\n`);
        if (count && ++seen >= count) void sub.close();
      },
      onError: (err) => (failure = err),
    });
    const stopListening = io.onInterrupt(() => void sub.close());
    await sub.done;
    stopListening();
    io.stderr.write(`episodic: stopped after seq ${sub.lastSeq} (resume with --after ${sub.lastSeq})\n`);
    if (failure) throw failure;
    return undefined;
  },
});

async function write(out: Writable, text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

/** Ends the partial file, then renames it to `file`, or removes it when the export failed (file null). */
async function closeExport(out: Writable, partial: string, file: string | null): Promise<void> {
  out.end();
  await once(out, 'finish').catch(() => undefined);
  if (file) await rename(partial, file);
  else await rm(partial, { force: true });
}

const MAX_CHECKPOINT_WAITS = 3;

/** The bundle, waiting (a few times) for the scheduled checkpoint when the episode is newer than the latest. */
async function bundleWhenCheckpointed(client: EpisodicClient, episodeId: string, stderr: Writable): Promise<EpisodeProofBundleResult> {
  for (let waits = 0; ; waits++) {
    const result = await client.episodeProofBundle(episodeId);
    if (result.__typename !== 'NotCheckpointedError' || waits >= MAX_CHECKPOINT_WAITS) return result;
    stderr.write(`episodic: waiting ${result.retryAfterMs} ms for the next signed checkpoint\n`);
    await new Promise((r) => setTimeout(r, result.retryAfterMs));
  }
}

/** Every signed checkpoint, oldest first, as JSON values (treeSize a number, as signed). */
async function allCheckpoints(client: EpisodicClient): Promise<Array<Omit<SignedTreeHead, 'treeSize'> & { treeSize: number }>> {
  const heads: Array<Omit<SignedTreeHead, 'treeSize'> & { treeSize: number }> = [];
  for (;;) {
    const last = heads.at(-1);
    const page = failOnErrorResult(await client.ledgerCheckpoints({ afterTreeSize: last ? last.treeSize : undefined, first: 500 }));
    heads.push(
      ...page.checkpoints.map((h) => ({
        tenantId: h.tenantId,
        treeSize: Number(h.treeSize),
        rootHash: h.rootHash,
        headHash: h.headHash,
        issuedAt: h.issuedAt,
        signature: h.signature,
        keyId: h.keyId,
      })),
    );
    if (!page.hasNextPage) return heads;
  }
}

/**
 * After a checkpoint a verifier already checked (--after <its size>): the proof that the newest
 * checkpoint extends it, so `episodic verify --state` checks only what is new (docs/LEDGER.md §7.3.1).
 */
async function consistencyFrom(client: EpisodicClient, after: number, newest: number | undefined) {
  if (after === 0 || newest === undefined || newest <= after) return undefined;
  const proof = failOnErrorResult(await client.consistencyProof({ fromSize: after, toSize: newest }));
  return { fromSize: after, toSize: newest, proof: proof.proof };
}

const ROW_REFS_PER_CALL = 500;

/** The stored values the exported events hash (docs/LEDGER.md §3.3), read in calls of 500. */
async function hashedRowsOf(client: EpisodicClient, claims: RowClaims) {
  const { claimList } = await import('../ledger/format/hashed-rows.ts');
  const refs = claimList(claims).map(({ kind, id }) => ({ kind, id }));
  const rows = [];
  for (let i = 0; i < refs.length; i += ROW_REFS_PER_CALL) rows.push(...failOnErrorResult(await client.hashedRows(refs.slice(i, i + ROW_REFS_PER_CALL))).rows);
  return rows;
}

export const exportCommand = defineCommand({
  name: 'export',
  summary: 'write ledger events (or an episode proof bundle) for `verify`',
  help: EXPORT_HELP,
  options: { after: { type: 'string' }, to: { type: 'string' }, output: { type: 'string', short: 'o' }, episode: { type: 'string' } },
  async run({ values: v, client, io }) {
    const file = v.output as string | undefined;
    // Written beside the file and renamed once complete: a failed export leaves no file (and an
    // existing one as it was).
    const partial = file ? `${file}.partial-${process.pid}` : undefined;
    const out: Writable = partial ? createWriteStream(partial) : io.stdout;
    let done = false;
    let count = 0;
    let first: number | null = null;
    let last: number | null = null;
    try {
      if (v.episode) {
        const result = failOnErrorResult(await bundleWhenCheckpointed(client, v.episode, io.stderr));
        await write(out, `${JSON.stringify(result.bundle)}\n`);
        count = result.eventCount;
      } else {
        const to = intOption(v.to, '--to', EXPORT_HELP, 1);
        let after = intOption(v.after, '--after', EXPORT_HELP) ?? 0;
        if (to !== undefined && to <= after) throw usage('--to must be greater than --after', EXPORT_HELP);
        // Checkpoints first: the events fetched afterwards reach at least the latest of them, and a
        // file cut short loses events before it can lose the checkpoints that reveal the cut.
        const checkpoints = await allCheckpoints(client);
        const tenantId = checkpoints[0]?.tenantId ?? (await client.viewer()).id;
        const head = Number((await client.ledgerHead()).seq);
        const toSeq = to === undefined ? null : Math.max(after, Math.min(to, head));
        await write(out, `${JSON.stringify({ format: EXPORT_FORMAT, tenantId, afterSeq: after, toSeq })}\n`);
        for (const checkpoint of checkpoints) await write(out, `${JSON.stringify({ checkpoint })}\n`);
        const consistency = await consistencyFrom(client, after, checkpoints.at(-1)?.treeSize);
        if (consistency) await write(out, `${JSON.stringify({ consistency })}\n`);
        // To the head, the values the events hash follow them, so verify recomputes every hash.
        const claims = toSeq === null ? new (await import('../ledger/format/row-claims.ts')).RowClaims() : undefined;
        for (;;) {
          const page = failOnErrorResult(await client.ledgerEvents({ after, first: to === undefined ? 500 : Math.min(500, to - after) }));
          for (const event of page.events) await write(out, `${JSON.stringify(event)}\n`);
          for (const event of page.events) claims?.add(event as StoredLedgerEvent);
          count += page.events.length;
          first ??= page.events[0]?.seq ?? null;
          last = page.events.at(-1)?.seq ?? last;
          after = last ?? after;
          if (!page.pageInfo.hasNextPage || (to !== undefined && after >= to) || !page.events.length) break;
        }
        if (claims) for (const row of await hashedRowsOf(client, claims)) await write(out, `${JSON.stringify({ row })}\n`);
      }
      done = true;
    } finally {
      if (file && partial) await closeExport(out, partial, done ? file : null);
    }
    if (!file) return undefined;
    const range = first === null ? '' : ` (seq ${first}..${last})`;
    return { text: `exported ${count} events${range} to ${file}`, json: { file, count, firstSeq: first, lastSeq: last } };
  },
});
