// Blobs through the API: each step lists the fields it keeps as blobs (or truncated), and a blob's
// content is read by its hash, only within the viewer's tenant.
import { builder } from '../builder.ts';
import { NotFoundError } from '../core/errors.ts';
import { isHashHex } from '../ledger/hash.ts';
import { type Context, viewerOf } from '../schema/context.ts';
import type { ContentRef, ContentRefs } from './large-content.ts';

type RefRow = ContentRef & { field: string };

async function blobContent(ctx: Context, hash: string): Promise<string | null> {
  if (!isHashHex(hash)) return null;
  const blob = await ctx.db.blob.findUnique({ where: { tenantId_hash: { tenantId: viewerOf(ctx).tenantId, hash } }, select: { content: true } });
  return blob?.content ?? null;
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
      description: 'The whole text when stored (read on demand).',
      resolve: (r, _args, ctx) => (r.stored ? blobContent(ctx, r.hash) : null),
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
    errors: { types: [NotFoundError] },
    description: "A blob a step of the viewer's tenant references, by its BLAKE3 hash (64 lowercase hex digits).",
    args: { hash: t.arg.string({ required: true }) },
    resolve: async (_root, { hash }, ctx) => {
      const blob = isHashHex(hash)
        ? await ctx.db.blob.findUnique({
            where: { tenantId_hash: { tenantId: ctx.viewer.tenantId, hash } },
            select: { hash: true, sizeBytes: true, content: true },
          })
        : null;
      if (!blob) throw new NotFoundError('Blob', hash);
      return blob;
    },
  }),
}));
