import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe('configuration', () => {
  it('defaults to the embedded database on port 4000', () => {
    const config = loadConfig({});
    expect(config.databaseUrl).toBeUndefined();
    expect(config.port).toBe(4000);
    expect(config.graphiql).toBe(true);
  });

  it('names a bad PORT and what it must be', () => {
    expect(problems({ PORT: 'abc' })).toEqual(['PORT must be an integer port between 0 and 65535 (got "abc")']);
    expect(problems({ PORT: '70000' })[0]).toMatch(/^PORT must be an integer port between 0 and 65535 \(got "70000"\)$/);
  });

  it('names a bad DATABASE_URL without printing its password', () => {
    const [line] = problems({ DATABASE_URL: 'mysql://u:secret@host/db' });
    expect(line).toMatch(/^DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL/);
    expect(line).not.toContain('secret');
  });

  it('reports every bad variable, one line each', () => {
    expect(problems({ PORT: '-1', LOG_LEVEL: 'loud' })).toHaveLength(2);
  });

  it('turns GraphiQL and introspection off in production unless asked', () => {
    const prod = loadConfig({ NODE_ENV: 'production' });
    expect([prod.graphiql, prod.introspection]).toEqual([false, false]);
    expect(loadConfig({ NODE_ENV: 'production', GRAPHIQL: 'true' }).graphiql).toBe(true);
  });
});
