// graphql-ws on the same path: authentication in connection_init, operations over a real socket.
import { describe, expect, it } from 'vitest';
import { type TestApp, useApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';

let t: TestApp;
useApp((app) => (t = app));

function runOnce(client: ReturnType<TestApp['wsClient']>, query: string) {
  return new Promise<{ result?: Json; error?: unknown }>((resolve) => {
    let result: Json;
    client.subscribe({ query }, { next: (r) => (result = r), error: (error) => resolve({ error }), complete: () => resolve({ result }) });
  });
}

describe('graphql-ws', () => {
  it('runs an operation for a client that authenticated in connection_init', async () => {
    const { result, error } = await runOnce(t.wsClient(t.keys.read), '{ viewer { name } }');
    expect(error).toBeUndefined();
    expect(result.data.viewer.name).toBe('tenant-a');
  });

  it('closes the socket with 4403 when connection_init carries no valid key', async () => {
    for (const token of [null, `epk_aaaaaaaaaaaa_${'a'.repeat(43)}`]) {
      const { error } = await runOnce(t.wsClient(token), '{ viewer { name } }');
      expect((error as { code?: number }).code).toBe(4403);
    }
  });
});
