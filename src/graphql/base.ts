// Root types and the shared Error interface. Root-type auth scopes apply to every field, so no
// operation can be added without a scope: reads need `read`, writes `write`.

import {
  type DomainError,
  IdempotencyConflictError,
  IllegalTransitionError,
  InputLimitError,
  LeaseError,
  type LimitViolation,
  NotFoundError,
} from '../core/errors.ts';
import { builder } from './builder.ts';
import { addScalars } from './scalars.ts';

addScalars(builder);

builder.queryType({ authScopes: { read: true } });
builder.mutationType({ authScopes: { write: true } });

export const ErrorInterface = builder.interfaceRef<DomainError>('Error').implement({
  description: 'An expected failure. Every error type implements this; branch on __typename.',
  fields: (t) => ({ message: t.exposeString('message') }),
});

builder.objectType(NotFoundError, {
  name: 'NotFoundError',
  interfaces: [ErrorInterface],
  isTypeOf: (v) => v instanceof NotFoundError,
  fields: (t) => ({ entity: t.exposeString('entity'), id: t.exposeString('id') }),
});

export const LimitViolationRef = builder.objectRef<LimitViolation>('LimitViolation').implement({
  description: 'One input that broke a rule: the field path as sent, the limit, and what was sent.',
  fields: (t) => ({
    field: t.exposeString('field'),
    limit: t.string({ resolve: (v) => String(v.limit) }),
    actual: t.string({ nullable: true, resolve: (v) => (v.actual == null ? null : String(v.actual)) }),
    message: t.exposeString('message'),
  }),
});

builder.objectType(InputLimitError, {
  name: 'InputLimitError',
  description: 'The input broke a limit or a rule. Nothing was written.',
  interfaces: [ErrorInterface],
  isTypeOf: (v) => v instanceof InputLimitError,
  fields: (t) => ({ violations: t.field({ type: [LimitViolationRef], resolve: (e) => e.violations }) }),
});

builder.objectType(IllegalTransitionError, {
  name: 'IllegalTransitionError',
  description: 'The episode is not in a state that allows this action. Nothing changed.',
  interfaces: [ErrorInterface],
  isTypeOf: (v) => v instanceof IllegalTransitionError,
  fields: (t) => ({ from: t.exposeString('from'), action: t.exposeString('action'), allowed: t.exposeStringList('allowed') }),
});

builder.objectType(IdempotencyConflictError, {
  name: 'IdempotencyConflictError',
  description: 'The dedupeKey was used before with different input.',
  interfaces: [ErrorInterface],
  isTypeOf: (v) => v instanceof IdempotencyConflictError,
  fields: (t) => ({ dedupeKey: t.exposeString('dedupeKey'), existingEpisodeId: t.exposeID('existingEpisodeId') }),
});

builder.objectType(LeaseError, {
  name: 'LeaseError',
  description: 'The lease does not allow this: revoked, expired, exhausted, or a child lease that would widen its parent.',
  interfaces: [ErrorInterface],
  isTypeOf: (v) => v instanceof LeaseError,
  fields: (t) => ({
    leaseId: t.exposeID('leaseId'),
    rule: t.exposeString('rule'),
    violations: t.field({ type: [LimitViolationRef], resolve: (e) => e.violations }),
  }),
});
