// Imports every module's types (they register themselves on the builder) and builds the schema.
import { assertValidSchema } from 'graphql';
import { builder } from '../builder.ts';
import './base.ts';
import '../auth/graphql.ts';
import '../episodes/graphql-episode.ts';
import '../episodes/graphql-queries.ts';
import '../steps/graphql.ts';
import '../leases/graphql.ts';
import '../ledger/graphql.ts';
import '../ledger/graphql-queries.ts';
import '../ledger/graphql-proofs.ts';
import '../ledger/graphql-subscriptions.ts';
import '../learning/graphql.ts';
import '../retrieval/graphql.ts';
import '../retrieval/graphql-files.ts';
import '../lifecycle/graphql.ts';
import '../lifecycle/graphql-records.ts';
import '../lifecycle/graphql-import.ts';
import '../monitor/graphql.ts';

export const schema = builder.toSchema({ sortSchema: true });
// Fail at start-up, not on the first request.
assertValidSchema(schema);
