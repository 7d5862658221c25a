// The naive baseline of the ingestion benchmark: what a straightforward ORM implementation does
// per logStep call: one Prisma transaction that locks the episode, creates the step, updates the
// usage and appends the chained ledger event through Prisma, one INSERT per step.

import { must } from '../src/core/must.ts';
import type { Database } from '../src/db/client.ts';
import { chainHash, GENESIS_HASH } from '../src/ledger/format/hash.ts';
import type { StepBatchOutcome, StepBatchRequest } from '../src/steps/apply.ts';

/**
 * Prisma's defaults (2 s to get a connection, 5 s per transaction) failed E's calls with "Unable to
 * start a transaction in the given time" on the loaded machine, 32 clients queueing on the chain
 * head, and the whole run with them: the baseline waits as long as it takes instead.
 */
const NO_SHEDDING = { maxWait: 120_000, timeout: 120_000 };

export function createNaiveIngest(db: Database) {
  return {
    async drain() {},
    async submit(tenantId: string, request: StepBatchRequest): Promise<StepBatchOutcome> {
      return db.prisma.$transaction(async (tx) => {
        const [ep] = await tx.$queryRaw<Array<{ step_count: number }>>`SELECT step_count FROM episodes WHERE id = ${request.episodeId}::uuid FOR UPDATE`;
        const items = [];
        let n = must(ep).step_count;
        for (const step of request.steps) {
          n += 1;
          const contentHash = step.contentHash;
          const created = await tx.step.create({
            data: {
              tenantId,
              episodeId: request.episodeId,
              stepNumber: n,
              kind: step.kind,
              tool: step.tool,
              action: step.action,
              parameters: step.parameters as object,
              argsHash: step.argsHash,
              resultKind: step.resultKind,
              result: step.result as object,
              observation: step.observation,
              latencyMs: step.latencyMs,
              tokens: step.tokens,
              cost: step.cost,
              contentHash,
              sizeBytes: step.sizeBytes,
            },
          });
          await tx.episode.update({ where: { id: request.episodeId }, data: { stepCount: n, usedTokens: { increment: step.tokens } } });
          const [head] = await tx.$queryRaw<
            Array<{ seq: bigint; hash: string }>
          >`SELECT seq, hash FROM ledger_heads WHERE tenant_id = ${tenantId}::uuid FOR UPDATE`;
          const seq = Number(head?.seq ?? 0) + 1;
          const entry = {
            tenantId,
            seq,
            type: 'steps.logged',
            episodeId: request.episodeId,
            workItemId: null,
            payload: { steps: [{ n, hash: contentHash }] },
            createdAt: new Date().toISOString(),
          };
          const hash = chainHash(head?.hash ?? GENESIS_HASH, entry);
          await tx.ledgerEvent.create({
            data: { ...entry, seq: BigInt(seq), prevHash: head?.hash ?? GENESIS_HASH, hash, createdAt: new Date(entry.createdAt) },
          });
          await tx.ledgerHead.upsert({ where: { tenantId }, create: { tenantId, seq: BigInt(seq), hash }, update: { seq: BigInt(seq), hash } });
          items.push({ status: 'accepted' as const, stepId: created.id, stepNumber: n });
        }
        return { ok: true as const, episodeId: request.episodeId, items, exhausted: null };
      }, NO_SHEDDING);
    },
  };
}
