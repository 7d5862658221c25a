// Imports every module's types (they register themselves on the builder) and builds the schema.
import { assertValidSchema } from 'graphql';
import { builder } from './builder.ts';
import './base.ts';
import './api-keys.ts';
import './episodes.ts';
import './episode-queries.ts';
import './steps.ts';
import './step-forget.ts';
import './tenant-retention.ts';
import './leases.ts';
import './ledger.ts';
import './ledger-queries.ts';
import './ledger-proofs.ts';
import './ledger-subscriptions.ts';
import './patterns.ts';
import './retrieval.ts';
import './retrieval-files.ts';
import './lifecycle.ts';
import './episode-records.ts';
import './import-run.ts';
import './model-usage.ts';
import './otlp-refusals.ts';
import './dashboard.ts';
import './experiments.ts';

export const schema = builder.toSchema({ sortSchema: true });
// Fail at start-up, not on the first request.
assertValidSchema(schema);
