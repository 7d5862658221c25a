// episodic keys create | list | revoke over the API, with an admin key. (With --tenant, the keys
// commands work on the database directly instead: see admin.ts.)
import { parseExpiry } from './expiry.ts';
import { defineCommand, failOnErrorResult, usage } from './remote.ts';

const HELP = `Usage: episodic keys <create|list|revoke> [options]      (over the API, needs an admin key)
  keys create --scopes read,write[,admin] [--name <label>] [--expires <ISO date | 90d>]
                        create a key for your tenant; the secret is printed once
  keys list             list your tenant's keys (never their secrets)
  keys revoke <key id>  revoke a key at once
With --tenant <name|id> these commands work on the server's database instead (operator use).`;

export const keysCommand = defineCommand({
  name: 'keys',
  summary: 'create, list and revoke API keys',
  help: HELP,
  options: { scopes: { type: 'string' }, name: { type: 'string' }, expires: { type: 'string' } },
  async run({ values: v, positionals, client }) {
    const [action, id] = positionals;
    switch (action) {
      case 'create': {
        if (!v.scopes) throw usage('missing --scopes', HELP);
        const scopes = String(v.scopes)
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        const expiresAt = v.expires === undefined ? undefined : parseExpiry(v.expires, new Date());
        const created = failOnErrorResult(await client.createApiKey({ name: v.name ?? 'cli', scopes, expiresAt: expiresAt?.toISOString() }));
        const expiry = created.key.expiresAt ? `, expires ${created.key.expiresAt}` : '';
        return {
          text: `created key ${created.key.id} (${created.key.scopes.join(',')}${expiry}); its secret, shown once:\n${created.token}`,
          json: { id: created.key.id, name: created.key.name, scopes: created.key.scopes, expiresAt: created.key.expiresAt ?? null, token: created.token },
        };
      }
      case 'list': {
        const keys = await client.apiKeys();
        const rows = keys.map(
          (k) => `${k.id}  ${k.prefix}  ${k.scopes.join(',').padEnd(16)} ${k.name}  expires ${k.expiresAt ?? 'never'}${k.revokedAt ? '  (revoked)' : ''}`,
        );
        return { text: rows.join('\n') || 'no keys', json: keys };
      }
      case 'revoke': {
        if (!id) throw usage('missing the key id', HELP);
        const key = failOnErrorResult(await client.revokeApiKey(id));
        return { text: `revoked ${key.id} at ${key.revokedAt}`, json: { id: key.id, revokedAt: key.revokedAt } };
      }
      default:
        throw usage(action ? `unknown keys command "${action}"` : 'missing create, list or revoke', HELP);
    }
  },
});
