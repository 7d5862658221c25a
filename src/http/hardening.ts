// GraphQL hardening: depth, cost, alias, token and directive limits (graphql-armor), CSRF
// prevention, introspection off where configured, and the per-key rate limit.
import { EnvelopArmor } from '@escape.tech/graphql-armor';
import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import { useDisableIntrospection } from '@graphql-yoga/plugin-disable-introspection';
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { RateLimiter } from '../auth/rate-limit.ts';
import type { Config } from '../config.ts';

export function hardeningPlugins(config: Config): Array<Plugin<any>> {
  const { maxDepth, maxAliases, maxTokens, maxCost } = config.armor;
  const armor = new EnvelopArmor({
    maxDepth: { n: maxDepth, ignoreIntrospection: true },
    maxAliases: { n: maxAliases },
    maxTokens: { n: maxTokens },
    maxDirectives: { n: 50 },
    costLimit: { maxCost, ignoreIntrospection: true },
    blockFieldSuggestion: { enabled: config.isProduction },
  });
  return [
    ...(armor.protect().plugins as Array<Plugin<any>>),
    // Requests without a CORS preflight (GET, form posts) must carry this header.
    useCSRFPrevention({ requestHeaders: ['x-graphql-yoga-csrf'] }),
    ...(config.introspection ? [] : [useDisableIntrospection()]),
  ];
}

/** Throws the 429-style error a client can act on: wait retryAfterMs, then retry. */
export async function enforceRateLimit(limiter: RateLimiter | null, keyId: string): Promise<void> {
  if (!limiter) return;
  const decision = await limiter.take(keyId);
  if (decision.ok) return;
  throw new GraphQLError(`Rate limit exceeded for this API key; retry in ${Math.ceil(decision.retryAfterMs / 1000)} s.`, {
    extensions: {
      code: 'RATE_LIMITED',
      retryAfterMs: decision.retryAfterMs,
      http: { status: 429, headers: { 'retry-after': String(Math.ceil(decision.retryAfterMs / 1000)) } },
    },
  });
}
