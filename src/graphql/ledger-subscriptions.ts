// Subscriptions (graphql-ws, and SSE through yoga on the same /graphql path) over the ledger of the
// viewer's tenant: replayed after a cursor, then followed live (tail.ts). Scope auth runs on
// subscribe, so a key without `read` is refused before any event is read.
import { GraphQLError } from 'graphql';
import { canonicalId, isUuid } from '../core/ids.ts';
import { must } from '../core/must.ts';
import { liveSource, StreamEnd } from '../ledger/fanout/live-stream.ts';
import { cursorAfter, type LedgerCursor, tailLedger } from '../ledger/fanout/tail.ts';
import type { StoredLedgerEvent } from '../ledger/format/hash.ts';
import type { LedgerFilter } from '../ledger/store/read.ts';
import { ResponseBudget } from '../steps/read-budget.ts';
import { builder } from './builder.ts';
import type { AuthedContext } from './context.ts';
import { LedgerEventRef, LedgerFilterInput } from './ledger.ts';
import { chargeStepRows, selectsOwnStepContent } from './step-page.ts';

builder.subscriptionType({
  authScopes: { read: true },
  description: 'Live views of the ledger. A subscription that ends early says, in extensions.resumeAfterSeq, where to resume.',
});

function badInput(field: string, message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT', field } });
}

/** The same answer for a malformed id, an unknown one and another tenant's: nothing to see. */
function episodeNotFound(id: string): GraphQLError {
  return new GraphQLError(`Episode ${id} was not found`, { extensions: { code: 'NOT_FOUND', entity: 'Episode', id } });
}

function toSeq(value: bigint | null | undefined, field: string): number | null {
  if (value === null || value === undefined) return null;
  if (value < 0n || value > BigInt(Number.MAX_SAFE_INTEGER)) throw badInput(field, `${field} must be a seq between 0 and ${Number.MAX_SAFE_INTEGER}`);
  return Number(value);
}

type FilterArg = { episodeId?: string | number | null; workItemId?: string | number | null; types?: string[] | null } | null | undefined;

function toFilter(input: FilterArg): LedgerFilter | null {
  if (!input) return null;
  const id = (field: 'episodeId' | 'workItemId') => {
    const value = input[field];
    if (value === null || value === undefined) return null;
    if (!isUuid(String(value))) throw badInput(`filter.${field}`, `filter.${field} must be a UUID`);
    return canonicalId(value);
  };
  return { episodeId: id('episodeId'), workItemId: id('workItemId'), types: input.types ?? null };
}

async function visibleEpisodeId(ctx: AuthedContext, id: string): Promise<string> {
  const found = isUuid(id) ? await ctx.db.episode.findFirst({ where: { id, tenantId: ctx.viewer.tenantId }, select: { id: true } }) : null;
  if (!found) throw episodeNotFound(id);
  return found.id;
}

function tail(ctx: AuthedContext, cursor: LedgerCursor, filter: LedgerFilter | null, signal: AbortSignal) {
  const { ledgerReads: reads, ledgerBus: bus } = ctx.services;
  const key = { id: ctx.viewer.keyId, expiresAt: ctx.viewer.expiresAt };
  return tailLedger({ reads, bus, tenantId: ctx.viewer.tenantId, cursor, filter, signal, key });
}

/** Items reach the resolver; an early end becomes the client's error there. */
function unwrap<T>(item: T | StreamEnd): T {
  if (item instanceof StreamEnd) throw item.toError();
  return item;
}

/** The seq now, then the seq of each matching event: each one means "load the current state". */
async function* ticks(head: number, events: AsyncGenerator<StoredLedgerEvent>): AsyncGenerator<number> {
  yield head;
  for await (const e of events) yield e.seq;
}

/** Step numbers a steps.logged event covers (payload.steps[].n). */
function stepNumbers(e: StoredLedgerEvent): number[] {
  const steps = (e.payload as { steps?: Array<{ n?: unknown }> } | null)?.steps ?? [];
  return steps.map((s) => s.n).filter((n): n is number => Number.isSafeInteger(n));
}

const StepsLoggedRef = builder.objectRef<StoredLedgerEvent>('StepsLoggedEvent').implement({
  description: 'One steps.logged ledger event and the steps it covers.',
  fields: (t) => ({
    seq: t.field({ type: 'BigInt', resolve: (e) => e.seq }),
    episodeId: t.id({ resolve: (e) => must(e.episodeId) }),
    steps: t.prismaField({
      type: ['Step'],
      description:
        "Their content counts against MAX_RESPONSE_BYTES before it is read, each event on a budget of its own (a subscription's events are answers of their own).",
      resolve: async (query, e, _args, ctx, info) => {
        const rows = {
          where: { tenantId: e.tenantId, episodeId: must(e.episodeId), stepNumber: { in: stepNumbers(e) } },
          orderBy: { stepNumber: 'asc' as const },
        };
        const budget = new ResponseBudget(ctx.budget.limit);
        if (selectsOwnStepContent(info)) await chargeStepRows(ctx, rows, (n) => `The ${n} steps of event ${e.seq}`, budget);
        return ctx.db.step.findMany({ ...query, ...rows });
      },
    }),
  }),
});

const afterSeqDescription = 'Replay events with a greater seq first; omitted: only events committed from now on.';

builder.subscriptionFields((t) => ({
  ledgerEvents: t.withAuth({ read: true }).field({
    type: LedgerEventRef,
    description: 'Events of your tenant in seq order: a replay after afterSeq, then live, with no gap and no duplicate.',
    args: { afterSeq: t.arg({ type: 'BigInt', description: afterSeqDescription }), filter: t.arg({ type: LedgerFilterInput }) },
    subscribe: (_root, args, ctx) => {
      const cursor = cursorAfter(toSeq(args.afterSeq, 'afterSeq'));
      const filter = toFilter(args.filter);
      return liveSource({ ctx, cursor, run: (signal) => tail(ctx, cursor, filter, signal) });
    },
    resolve: (item) => unwrap(item),
  }),
  episodeUpdated: t.withAuth({ read: true }).prismaField({
    type: 'Episode',
    description: 'The episode as it is now, then again each time one of its ledger events commits.',
    args: { id: t.arg.id({ required: true }) },
    subscribe: async (_root, args, ctx) => {
      const episodeId = await visibleEpisodeId(ctx, canonicalId(args.id));
      // The head is read before the state is loaded, so no change can fall between the two.
      const head = await ctx.services.ledgerReads.head(ctx.viewer.tenantId);
      const cursor = cursorAfter(head);
      return liveSource({ ctx, cursor, run: (signal) => ticks(head, tail(ctx, cursor, { episodeId }, signal)) });
    },
    resolve: async (query, tick, args, ctx) => {
      unwrap(tick);
      const episode = await ctx.db.episode.findFirst({ ...query, where: { id: canonicalId(args.id), tenantId: ctx.viewer.tenantId } });
      if (!episode) throw episodeNotFound(String(args.id));
      return episode;
    },
  }),
  stepsLogged: t.withAuth({ read: true }).field({
    type: StepsLoggedRef,
    description: 'Each batch of steps journaled for the episode, with the steps.',
    args: { episodeId: t.arg.id({ required: true }), afterSeq: t.arg({ type: 'BigInt', description: afterSeqDescription }) },
    subscribe: async (_root, args, ctx) => {
      const cursor = cursorAfter(toSeq(args.afterSeq, 'afterSeq'));
      const episodeId = await visibleEpisodeId(ctx, canonicalId(args.episodeId));
      return liveSource({ ctx, cursor, run: (signal) => tail(ctx, cursor, { episodeId, types: ['steps.logged'] }, signal) });
    },
    resolve: (item) => unwrap(item),
  }),
}));
