// DNS rebinding protection for /mcp, which MCP's Streamable HTTP transport requires of a server:
// a web page on another site, its name re-pointed at this machine, would reach /mcp with the
// browser's requests. Such a request names the attacker's host in Host and its page's origin in
// Origin, so both are checked against allow-lists (MCP_ALLOWED_HOSTS, localhost by default;
// MCP_ALLOWED_ORIGINS, besides the allowed hosts' own origins). Pure.

export interface OriginPolicy {
  /** Host names (without the port) a request may address. */
  allowedHosts: readonly string[];
  /** Further origins (scheme://host[:port]) a browser page may call from. */
  allowedOrigins: readonly string[];
}

/** The host name of a Host header, without its port ('[::1]:4000' -> '[::1]'); null when absent. */
function hostName(host: string | undefined): string | null {
  if (!host) return null;
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : (host.split(':')[0] ?? '');
  return name.toLowerCase();
}

/** Why the request may not reach /mcp (naming the header and the setting), or null when it may. */
export function originRefusal(headers: { host?: string; origin?: string }, policy: OriginPolicy): string | null {
  const hosts = policy.allowedHosts.map((h) => h.toLowerCase());
  const host = hostName(headers.host);
  if (!host || !hosts.includes(host)) {
    return `Host ${headers.host ?? '(none)'} is not allowed for /mcp; allowed: ${hosts.join(', ')} (MCP_ALLOWED_HOSTS)`;
  }
  if (headers.origin === undefined) return null;
  let origin: URL | null = null;
  try {
    origin = new URL(headers.origin);
  } catch {
    origin = null;
  }
  const allowed = origin !== null && (hosts.includes(origin.hostname.toLowerCase()) || policy.allowedOrigins.includes(origin.origin));
  return allowed ? null : `Origin ${headers.origin} is not allowed for /mcp (MCP_ALLOWED_ORIGINS, or a host of MCP_ALLOWED_HOSTS)`;
}
