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

/** Reads `url` as one of the accepted forms; `invalid` says what to set instead (without echoing credentials). */
export function readRedisUrl(url: string): RedisUrl {
  const text = url.trim();
  const refuse = (why: string): RedisUrl => ({ kind: 'invalid', problem: `REDIS_URL ${why}; set it as ${REDIS_URL_FORMS}` });
  if (/^redis\+cluster:\/\//i.test(text)) {
    const match = /^redis\+cluster:\/\/(?:([^:@/]*)(?::([^@/]*))?@)?([^/?#]*)/i.exec(text)!;
    const seeds = match[3]!.split(',').map((part) => part.trim()).filter(Boolean);
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
    try {
      return {
        kind: 'cluster',
        nodes,
        ...(match[1] ? { username: decodeURIComponent(match[1]) } : {}),
        ...(match[2] ? { password: decodeURIComponent(match[2]) } : {}),
      };
    } catch {
      return refuse('has credentials that are not URL-encoded (encode @ : / % in them)');
    }
  }
  if (!/^rediss?:\/\//i.test(text)) return refuse('must start with redis://, rediss:// or redis+cluster://');
  try {
    const parsed = new URL(text);
    if (!parsed.hostname) return refuse('names no host');
  } catch {
    return refuse('is not a URL');
  }
  return { kind: 'single', url: text };
}
