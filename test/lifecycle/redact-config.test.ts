// REDACT_KEYS replaces the list of keys whose values are redacted in stored step parameters.
import { expect, it } from 'vitest';
import { contentHash } from '../../src/ledger/format/hash.ts';
import { type TestApp, useApp } from '../support/app.ts';
import { client, step } from './support.ts';

let t: TestApp;
useApp((app) => (t = app), { REDACT_KEYS: 'foo, client_secret' });

it('redacts the configured keys instead of the default list', async () => {
  const api = client(t);
  const episode = await api.startOk();
  const parameters = { foo: 'f-1', my_foo: 'f-2', clientSecret: 'c-3', password: 'kept', token: 'kept too' };
  const r = await api.logStep(episode.id, step({ parameters }));
  expect(r.result.step.parameters).toEqual({ foo: '[REDACTED]', my_foo: '[REDACTED]', clientSecret: '[REDACTED]', password: 'kept', token: 'kept too' });
  expect(r.result.step.argsHash).toBe(contentHash(parameters));
  const { rows } = await t.services.db.pool.query('SELECT parameters FROM steps WHERE id = $1', [r.result.step.id]);
  expect(JSON.stringify(rows[0].parameters)).not.toMatch(/f-1|f-2|c-3/);
});
