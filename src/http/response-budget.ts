// The whole-request side of the byte budget (MAX_RESPONSE_BYTES): before a document that selects
// `blob(hash:)` runs, the stored sizes of every blob it names (each alias counted) are read from
// their rows in one query, and a document whose blobs together pass the budget is refused before
// any of them is read. Each read is charged again as it resolves (src/steps/read-budget.ts), which
// also covers content reached through steps (Step.contentRefs { content }). A document within the
// budget is charged by its bytes at admission too, one slot per 128 KiB it reads (it runs before
// useAdmission): 64 concurrent reads of a 7.9 MB blob by one key run one at a time, not 64.
import { type DocumentNode, GraphQLError, Kind, type ValueNode, visit } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type pg from 'pg';
import type { Viewer } from '../auth/store.ts';
import { Params, queryRows } from '../db/sql.ts';
import type { Context } from '../graphql/context.ts';
import { isHashHex } from '../ledger/format/hash.ts';
import { chargeOperation, markCaller } from './admission.ts';
import { perDocument } from './per-document.ts';

/** The hash argument of every `blob` field in the document (literal or variable), one entry per occurrence. */
export function blobHashesIn(document: DocumentNode, variables: Record<string, unknown> | null | undefined): string[] {
  const hashes: string[] = [];
  for (const arg of blobHashArguments(document)) {
    const value = arg?.kind === Kind.STRING ? arg.value : arg?.kind === Kind.VARIABLE ? variables?.[arg.name.value] : undefined;
    if (isHashHex(value)) hashes.push(value);
  }
  return hashes;
}

/** The `hash` argument of each `blob` field in the document (undefined where it has none). */
const blobHashArguments = perDocument((document: DocumentNode): readonly (ValueNode | undefined)[] => {
  const found: (ValueNode | undefined)[] = [];
  visit(document, {
    Field(node) {
      if (node.name.value === 'blob') found.push(node.arguments?.find((a) => a.name.value === 'hash')?.value);
    },
  });
  return found;
});

function responseTooLargeError(limit: number, requested: number): GraphQLError {
  return new GraphQLError(
    `The blobs this request reads hold ${requested} bytes, more than MAX_RESPONSE_BYTES (${limit} bytes per request); nothing was read. Download large content with GET /blobs/<hash> (Range supported), or split the request.`,
    { extensions: { code: 'RESPONSE_TOO_LARGE', budget: 'MAX_RESPONSE_BYTES', limit, requested } },
  );
}

/** Bytes of stored content that cost one admission slot: a read of the whole default budget (8 MiB) costs 64, a key's whole share. */
const BYTES_PER_SLOT = 128 * 1024;

async function requestedBytes(pool: pg.Pool, viewer: Viewer, hashes: string[]): Promise<number> {
  markCaller(viewer);
  const p = new Params();
  const sql = `SELECT sum(b.size_bytes) AS requested FROM unnest(${p.add(hashes)}::text[]) AS h(hash) JOIN blobs b ON b.tenant_id = ${p.add(viewer.tenantId)} AND b.hash = h.hash`;
  return Number((await queryRows<{ requested: string | null }>(pool, sql, p))[0]?.requested ?? 0);
}

export function useResponseBudget(pool: pg.Pool, limit: number): Plugin {
  return {
    async onExecute({ args, setResultAndStopExecution }) {
      const viewer = (args.contextValue as unknown as Context).viewer;
      if (!viewer) return;
      const hashes = blobHashesIn(args.document, args.variableValues);
      if (!hashes.length) return;
      const requested = await requestedBytes(pool, viewer, hashes);
      if (requested > limit) setResultAndStopExecution({ errors: [responseTooLargeError(limit, requested)] });
      else chargeOperation(args.contextValue as object, 1 + Math.floor(requested / BYTES_PER_SLOT));
    },
  };
}
