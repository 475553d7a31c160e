/**
 * The forms of `REDIS_URL` StreamDoctor connects with, read by one function: the environment check
 * (env.ts) and the Redis client factory (src/runtime/redis-client.ts) both use it, so a URL the check
 * accepts is one the client can open, and the reverse.
 */

export const REDIS_URL_FORMS = 'redis://[user:password@]host:port[/db], rediss://… (TLS), or redis+cluster://[user:password@]host:port,host:port,… (Redis Cluster seed nodes)';

export type RedisUrl =
  | { kind: 'single'; url: string }
  | { kind: 'cluster'; nodes: { host: string; port: number }[]; username?: string; password?: string }
  | { kind: 'invalid'; problem: string };

/**
 * `url` cut at its credentials: everything between `://` and the last `@`. A password may hold an
 * un-encoded `/`, `:` or `@`, so nothing before the last `@` can be told apart from it, and none of it
 * may be echoed; `credentials` is null when there is no `@`.
 */
export function splitRedisCredentials(url: string): { scheme: string; credentials: string | null; rest: string } {
  const text = url.trim();
  const schemeEnd = text.indexOf('://');
  if (schemeEnd < 0) {
    // No authority to find; a stray `@` may still hide a password (`user:pw@host:6379`).
    const at = text.lastIndexOf('@');
    return at < 0 ? { scheme: '', credentials: null, rest: text } : { scheme: '', credentials: text.slice(0, at), rest: text.slice(at + 1) };
  }
  const scheme = text.slice(0, schemeEnd + 3);
  const after = text.slice(schemeEnd + 3);
  const at = after.lastIndexOf('@');
  return at < 0 ? { scheme, credentials: null, rest: after } : { scheme, credentials: after.slice(0, at), rest: after.slice(at + 1) };
}

/** `url` with its credentials (user and password, whatever they hold) replaced by `mask`, for messages and logs. */
export function redactRedisUrl(url: string, mask = '[credentials]'): string {
  const { scheme, credentials, rest } = splitRedisCredentials(url);
  return credentials === null ? `${scheme}${rest}` : `${scheme}${mask}@${rest}`;
}

/** Reads `url` as one of the accepted forms; `invalid` says what to set instead (never echoing credentials). */
export function readRedisUrl(url: string): RedisUrl {
  const text = url.trim();
  const refuse = (why: string): RedisUrl => ({ kind: 'invalid', problem: `REDIS_URL ${why}; set it as ${REDIS_URL_FORMS}` });
  const { scheme, credentials, rest } = splitRedisCredentials(text);
  let username: string | undefined;
  let password: string | undefined;
  if (credentials !== null) {
    const colon = credentials.indexOf(':');
    try {
      username = decodeURIComponent(colon < 0 ? credentials : credentials.slice(0, colon));
      password = colon < 0 ? undefined : decodeURIComponent(credentials.slice(colon + 1));
    } catch {
      return refuse('has credentials that are not URL-encoded (encode @ : / % in them)');
    }
  }
  if (/^redis\+cluster:\/\/$/i.test(scheme)) {
    const seeds = /^[^/?#]*/.exec(rest)![0].split(',').map((part) => part.trim()).filter(Boolean);
    if (seeds.length === 0) return refuse('names no cluster node');
    const nodes: { host: string; port: number }[] = [];
    for (const hostPort of seeds) {
      const at = hostPort.lastIndexOf(':');
      // `[::1]:7000` keeps its brackets up to the port; a bare IPv6 address has no port.
      const bracketed = hostPort.startsWith('[') && hostPort.endsWith(']');
      const host = (at > 0 && !bracketed ? hostPort.slice(0, at) : hostPort).replace(/^\[|\]$/g, '');
      const portText = at > 0 && !bracketed ? hostPort.slice(at + 1) : '6379';
      const port = Number(portText);
      if (!host || !/^\d+$/.test(portText) || port < 1 || port > 65535) return refuse(`has a cluster node "${hostPort.slice(0, 60)}" that is not host:port`);
      nodes.push({ host, port });
    }
    return { kind: 'cluster', nodes, ...(username ? { username } : {}), ...(password ? { password } : {}) };
  }
  if (!/^rediss?:\/\/$/i.test(scheme)) return refuse('must start with redis://, rediss:// or redis+cluster://');
  // The client reads a single URL itself, and would end the host at an un-encoded `/`, `?` or `#` in the password.
  if (credentials !== null && /[/?#]/.test(credentials)) return refuse('has credentials with an un-encoded / ? or # (encode them as %2F %3F %23)');
  try {
    const parsed = new URL(`${scheme}${rest}`);
    if (!parsed.hostname) return refuse('names no host');
  } catch {
    return refuse('is not a URL');
  }
  return { kind: 'single', url: text };
}
