// Root types and the shared Error interface. Root-type auth scopes apply to every field, so no
// operation can be added without a scope: reads need `read`, writes `write`.
import { builder } from '../builder.ts';
import { DomainError, InputLimitError, NotFoundError, type LimitViolation } from './errors.ts';
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

const LimitViolationRef = builder.objectRef<LimitViolation>('LimitViolation').implement({
  description: 'One input that broke a rule: the field path as sent, the limit, and what was sent.',
  fields: (t) => ({
    field: t.exposeString('field'),
    limit: t.exposeString('limit'),
    actual: t.exposeString('actual', { nullable: true }),
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
