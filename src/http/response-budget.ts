// The whole-request side of the byte budget (MAX_RESPONSE_BYTES): before a document that selects
// `blob(hash:)` or pages of an episode's step content (`episode(id:) { steps { edges { node { result } } } }`,
// src/http/step-page-reads.ts) runs, the stored sizes of every blob and page it names (each alias
// counted) are summed by PostgreSQL, and a document whose reads together pass the budget is refused
// before any of them is read, with one error. Each read is charged again as it resolves
// (src/steps/read-budget.ts), which also covers content reached otherwise (Step.contentRefs { content },
// episodes lists). A document within the budget is charged by its bytes at admission too, one slot
// per 128 KiB it reads (it runs before useAdmission): 64 concurrent reads of a 7.9 MB blob by one
// key run one at a time, not 64.
import { type DocumentNode, GraphQLError, Kind, type ValueNode, visit } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type pg from 'pg';
import type { Viewer } from '../auth/store.ts';
import { Params, queryRows } from '../db/sql.ts';
import type { Context } from '../graphql/context.ts';
import { isHashHex } from '../ledger/format/hash.ts';
import { stepPagesBytes } from '../steps/page-sizes.ts';
import { chargeOperation, markCaller } from './admission.ts';
import { perDocument } from './per-document.ts';
import { LARGE_READ_BYTES, markLargeRead } from './sliced-answers.ts';
import { stepPagesIn } from './step-page-reads.ts';

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
    `The blobs and step pages this request reads hold ${requested} bytes, more than MAX_RESPONSE_BYTES (${limit} bytes per request); nothing was read. Download large content with GET /blobs/<hash> (Range supported), page steps with fewer rows, or split the request.`,
    { extensions: { code: 'RESPONSE_TOO_LARGE', budget: 'MAX_RESPONSE_BYTES', limit, requested } },
  );
}

/** Bytes of stored content that cost one admission slot: a read of 1 MiB or more costs 8, a key's whole default share (MAX_REQUESTS_PER_KEY; the units are capped at the share). */
const BYTES_PER_SLOT = 128 * 1024;

async function blobBytes(pool: pg.Pool, viewer: Viewer, hashes: string[]): Promise<number> {
  if (!hashes.length) return 0;
  const p = new Params();
  const sql = `SELECT sum(b.size_bytes) AS requested FROM unnest(${p.add(hashes)}::text[]) AS h(hash) JOIN blobs b ON b.tenant_id = ${p.add(viewer.tenantId)} AND b.hash = h.hash`;
  return Number((await queryRows<{ requested: string | null }>(pool, sql, p))[0]?.requested ?? 0);
}

export function useResponseBudget(pool: pg.Pool, limit: number): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const viewer = (args.contextValue as unknown as Context).viewer;
      if (!viewer) return undefined;
      const variables = args.variableValues ?? {};
      const hashes = blobHashesIn(args.document, variables);
      const pages = stepPagesIn(args.schema, args.document, args.operationName, variables);
      // Nothing stored to measure (most documents): decided synchronously, no promise.
      if (!hashes.length && !pages.length) return undefined;
      markCaller(viewer);
      return Promise.all([blobBytes(pool, viewer, hashes), stepPagesBytes(pool, viewer.tenantId, pages)]).then((sizes) => {
        const requested = sizes[0] + sizes[1];
        if (requested > limit) setResultAndStopExecution({ errors: [responseTooLargeError(limit, requested)] });
        else {
          chargeOperation(args.contextValue as object, 1 + Math.floor(requested / BYTES_PER_SLOT));
          if (requested >= LARGE_READ_BYTES) markLargeRead(args.contextValue as object, { blobBytes: sizes[0], blobs: hashes.length, pageBytes: sizes[1] });
        }
      });
    },
  };
}
