// A baseline server of bench:http, in its own process (bench/http.ts forks it): `yoga` bare
// graphql-yoga answering `{hello}`, `yoga-pg` bare yoga reading one tenant's row with `pg` and a
// prepared statement (`{tenant{name}}`, the same row `{viewer{name}}` reads). The Episodic server
// is the compiled one (bench/episodic-server.ts). Sends `{ url }` over IPC when listening; stops
// and exits on the message 'stop' (so a --cpu-prof profile is written).
//   argv: <mode>; env: BENCH_DATABASE (url), BENCH_TENANT (id, yoga-pg)
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSchema, createYoga } from 'graphql-yoga';
import pg from 'pg';

const mode = process.argv[2];
/** Named by the mode, so bench:http can tell this server's PostgreSQL backends (pg_stat_activity) from the others'. */
const databaseUrl = withApplicationName(process.env.BENCH_DATABASE ?? '', `bench-http-${mode}`);
const tenantId = process.env.BENCH_TENANT ?? '';

function withApplicationName(url: string, name: string): string {
  if (!url) return url;
  const u = new URL(url);
  u.searchParams.set('application_name', name);
  return u.toString();
}

async function startBare(withPg: boolean): Promise<{ url: string; stop(): Promise<void> }> {
  const pool = withPg ? new pg.Pool({ connectionString: databaseUrl, max: 20 }) : null;
  const schema = pool
    ? createSchema({
        typeDefs: 'type Tenant { name: String } type Query { tenant: Tenant }',
        resolvers: {
          // A named statement: parsed and planned once per connection, as Episodic's reads are.
          Query: {
            tenant: async () => (await pool.query({ name: 'tenant', text: 'SELECT name FROM tenants WHERE id = $1', values: [tenantId] })).rows[0] ?? null,
          },
        },
      })
    : createSchema({ typeDefs: 'type Query { hello: String }', resolvers: { Query: { hello: () => 'world' } } });
  const yoga = createYoga({ schema, logging: false, landingPage: false, graphiql: false });
  const server = createServer(yoga);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${yoga.graphqlEndpoint}`,
    async stop() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await pool?.end();
    },
  };
}

if (mode !== 'yoga' && mode !== 'yoga-pg') throw new Error(`unknown mode ${mode}: yoga or yoga-pg`);
const running = await startBare(mode === 'yoga-pg');
process.on('message', async (message) => {
  if (message !== 'stop') return;
  await running.stop();
  process.exit(0);
});
process.send?.({ url: running.url });
