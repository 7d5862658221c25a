// The client's types, checked by the compiler against the types GraphQL Code Generator makes from
// schema.graphql (src/client/generated/schema.ts, `npm run codegen`). The client's types are
// narrower than the schema's (a field the server always answers is not null here), so each is
// checked field by field: a field the schema no longer has, or whose type it changed, fails the
// type check with that field's name; and a field added to Episode fails it until the client
// selects it (its type here and EPISODE_FIELDS in documents.ts) or lists it as not selected.
import type * as Schema from './generated/schema.ts';
import type * as T from './types.ts';

type Element<V> = NonNullable<V> extends ReadonlyArray<infer E> ? NonNullable<E> : NonNullable<V>;
type Own<H> = Exclude<keyof H, '__typename'>;

/** The fields of H (nested ones as "parent.field", three levels deep) that S lacks or types differently. */
type Mismatch<H, S, Depth extends unknown[] = []> = Depth['length'] extends 3
  ? never
  : {
      [K in Own<H>]-?: K extends keyof S
        ? Element<H[K]> extends object
          ? Element<S[K]> extends object
            ? `${K & string}.${Mismatch<Element<H[K]>, Element<S[K]>, [...Depth, K]> & string}`
            : K
          : Element<H[K]> extends Element<S[K]>
            ? never
            : K
        : K;
    }[Own<H>];

/** Compiles only when Fields is never; otherwise the error names the fields. */
type None<Fields extends never> = Fields;

export type ClientTypesMatchTheSchema = None<
  | Mismatch<T.Episode, Schema.Episode>
  | Mismatch<T.Step, Schema.Step>
  | Mismatch<T.Lease, Schema.Lease>
  | Mismatch<T.LeaseCharge, Schema.LeaseCharge>
  | Mismatch<T.WorkItem, Schema.WorkItem>
  | Mismatch<T.ApiKey, Schema.ApiKey>
  | Mismatch<T.SignedTreeHead, Schema.SignedTreeHead>
  | Mismatch<T.LedgerVerification, Schema.LedgerVerification>
  | Mismatch<T.RelevanceScore, Schema.RelevanceScore>
  | Mismatch<T.RelevantFile, Schema.RelevantFile>
  | Mismatch<T.StepItemResult, Schema.StepItemResult>
  | Mismatch<T.ConsistencyProof, Schema.ConsistencyProof>
>;

/** Episode fields the client's documents do not select (the monitor's and the MCP tools' own documents do, or nothing needs them). */
type EpisodeFieldsNotSelected =
  | 'costKnown'
  | 'feedbackCredit'
  | 'lastError'
  | 'learningState'
  | 'onBudgetExhausted'
  | 'parentEpisode'
  | 'reflection'
  | 'retrievalCredits'
  | 'reward'
  | 'steps'
  | 'updatedAt'
  | 'usageByModel';

export type EveryEpisodeFieldIsDecided = None<Exclude<keyof Schema.Episode, keyof T.Episode | EpisodeFieldsNotSelected | '__typename'>>;
