// Blobs through the API: each step lists the fields it keeps as blobs (or truncated), and a blob's
// content is read by its hash, only within the viewer's tenant. Every read of stored content is
// charged to the request's byte budget at its stored size (from the row) before its bytes are read,
// which are read in slices (src/steps/blob-text.ts); a large one is streamed into an answer that is
// sent in slices, read from the database as the answer is written (src/steps/streamed-text.ts).
import { GraphQLError } from 'graphql';
import { NotFoundError } from '../core/errors.ts';
import { isHashHex } from '../ledger/format/hash.ts';
import { blobText, blobTextSlices } from '../steps/blob-text.ts';
import type { ContentRef, ContentRefs } from '../steps/large-content.ts';
import { ResponseBudgetError } from '../steps/read-budget.ts';
import { STREAMED_TEXT_BYTES, streamedText } from '../steps/streamed-text.ts';
import { ErrorInterface } from './base.ts';
import { builder } from './builder.ts';
import { type Context, viewerOf } from './context.ts';

type RefRow = ContentRef & { field: string };

builder.objectType(ResponseBudgetError, {
  name: 'ResponseBudgetError',
  description:
    'Reading this content would pass the byte budget of one request (MAX_RESPONSE_BYTES); nothing of it was read. Download it with GET /blobs/<hash> (Range supported), or read it in a request of its own.',
  interfaces: [ErrorInterface],
  isTypeOf: (v) => v instanceof ResponseBudgetError,
  fields: (t) => ({
    budget: t.string({ description: 'The budget that refused it: MAX_RESPONSE_BYTES.', resolve: () => 'MAX_RESPONSE_BYTES' }),
    limit: t.exposeInt('limit', { description: 'Bytes of large content one request may read.' }),
    requested: t.exposeInt('requested', { description: 'The stored size of the content refused.' }),
  }),
});

/**
 * The same refusal where a field cannot return an error type (a nullable String, a page): a coded
 * GraphQL error at the field's place. The error masker (src/http/yoga.ts) makes it of every
 * ResponseBudgetError a resolver throws, so resolvers charge without translating.
 */
export function budgetGraphQLError(err: ResponseBudgetError, at?: Pick<GraphQLError, 'nodes' | 'path'>): GraphQLError {
  return new GraphQLError(err.message, {
    nodes: at?.nodes,
    path: at?.path,
    extensions: { code: 'RESPONSE_TOO_LARGE', budget: 'MAX_RESPONSE_BYTES', limit: err.limit, requested: err.requested },
  });
}

/** A blob's text (charged already): streamed into the answer when it is large and the answer allows it, else read whole (null: gone). */
function blobContent(ctx: Context, tenantId: string, hash: string, sizeBytes: number): Promise<string | null> {
  const pool = ctx.services.db.pool;
  const streamed = sizeBytes >= STREAMED_TEXT_BYTES ? streamedText(ctx, () => blobTextSlices(pool, tenantId, hash)) : undefined;
  return streamed === undefined ? blobText(pool, tenantId, hash) : Promise.resolve(streamed);
}

async function refContent(ctx: Context, ref: RefRow): Promise<string | null> {
  if (!ref.stored || !isHashHex(ref.hash)) return null;
  ctx.budget.charge(ref.sizeBytes, `The blob of ${ref.field} (${ref.hash})`);
  return blobContent(ctx, viewerOf(ctx).tenantId, ref.hash, ref.sizeBytes);
}

export const StepContentRef = builder.objectRef<RefRow>('StepContentRef').implement({
  description:
    'A step field past its inline limit: the field holds a head + tail preview; the whole text is a blob (stored) or only its hash and size are kept (truncated).',
  fields: (t) => ({
    field: t.exposeString('field', { description: 'action, observation, result.output or result.message' }),
    hash: t.exposeString('hash', { description: 'BLAKE3 of the whole text (UTF-8), lowercase hex.' }),
    sizeBytes: t.exposeInt('sizeBytes'),
    stored: t.exposeBoolean('stored', { description: 'false: truncated on request, only the hash and size are kept.' }),
    content: t.string({
      nullable: true,
      description:
        "The whole text when stored (read on demand), charged at sizeBytes to the request's MAX_RESPONSE_BYTES: past it, a RESPONSE_TOO_LARGE error and nothing read. Large ones: GET /blobs/<hash>.",
      resolve: (r, _args, ctx) => refContent(ctx, r),
    }),
  }),
});

/** The Step.contentRefs list from the stored column. */
export function contentRefList(stored: unknown): RefRow[] {
  return Object.entries((stored ?? {}) as ContentRefs).map(([field, ref]) => ({ field, ...ref }));
}

interface BlobShape {
  hash: string;
  sizeBytes: number;
  content: string;
}

const BlobRef = builder.objectRef<BlobShape>('Blob').implement({
  description: 'Step content kept whole: content-addressed by BLAKE3, per tenant.',
  fields: (t) => ({ hash: t.exposeString('hash'), sizeBytes: t.exposeInt('sizeBytes'), content: t.exposeString('content') }),
});

builder.queryFields((t) => ({
  blob: t.withAuth({ read: true }).field({
    type: BlobRef,
    errors: { types: [NotFoundError, ResponseBudgetError] },
    description:
      "A blob a step of the viewer's tenant references, by its BLAKE3 hash (64 lowercase hex digits). Its size counts against the request's MAX_RESPONSE_BYTES before it is read; GET /blobs/<hash> streams one of any size.",
    args: { hash: t.arg.string({ required: true }) },
    resolve: async (_root, { hash }, ctx) => {
      const where = { tenantId_hash: { tenantId: ctx.viewer.tenantId, hash } };
      // The size first (from the row, without the content): the budget decides before the bytes are read.
      const found = isHashHex(hash) ? await ctx.db.blob.findUnique({ where, select: { sizeBytes: true } }) : null;
      if (!found) throw new NotFoundError('Blob', hash);
      ctx.budget.charge(found.sizeBytes, `Blob ${hash}`);
      const content = await blobContent(ctx, ctx.viewer.tenantId, hash, found.sizeBytes);
      if (content === null) throw new NotFoundError('Blob', hash);
      return { hash, sizeBytes: found.sizeBytes, content };
    },
  }),
}));
