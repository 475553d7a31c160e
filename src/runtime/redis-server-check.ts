/**
 * Start-up checks of the Redis server itself. StreamDoctor keeps exactly-once claims, silences and
 * queue state in Redis: a `maxmemory-policy` other than `noeviction` lets Redis silently evict them
 * under memory pressure (a claim evicted = an alert posted twice; a silence evicted = a muted stream
 * alerting), and BullMQ needs Redis 6.2 or newer. Both are refused at start with what to set.
 */
import { Redis } from 'ioredis';
import { clusterNodesOf } from './redis-client.js';

export interface RedisServerFacts {
  version: string | null;
  maxmemoryPolicy: string | null;
}

function field(info: string, name: string): string | null {
  const match = new RegExp(`^${name}:(.*)$`, 'm').exec(info);
  return match ? match[1]!.trim() : null;
}

/** Whether `version` (x.y.z) is at least `min`. */
export function versionAtLeast(version: string, min: string): boolean {
  const a = version.split('.').map((n) => Number.parseInt(n, 10) || 0);
  const b = min.split('.').map((n) => Number.parseInt(n, 10) || 0);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  }
  return true;
}

/** What the server says about itself (INFO server / memory: works where CONFIG is disabled). */
export async function readRedisServerFacts(url: string, timeoutMs = 3_000): Promise<RedisServerFacts> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: timeoutMs, commandTimeout: timeoutMs, enableOfflineQueue: false, retryStrategy: () => null });
  // The failure reaches the caller through connect()'s rejection; without a listener ioredis would
  // also print it to stderr, stack and all, as an "Unhandled error event".
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    const [server, memory] = await Promise.all([redis.info('server'), redis.info('memory')]);
    return { version: field(server, 'redis_version'), maxmemoryPolicy: field(memory, 'maxmemory_policy') };
  } finally {
    redis.disconnect();
  }
}

/** Problems with the server, each saying what to set; empty when it is fit (or could not be asked). */
export function redisServerProblems(facts: RedisServerFacts): string[] {
  const problems: string[] = [];
  if (facts.version && !versionAtLeast(facts.version, '6.2.0')) {
    problems.push(`Redis ${facts.version} is too old: StreamDoctor (BullMQ) needs Redis 6.2 or newer; upgrade the server REDIS_URL points at`);
  }
  if (facts.maxmemoryPolicy && facts.maxmemoryPolicy !== 'noeviction') {
    problems.push(
      `Redis maxmemory-policy is ${facts.maxmemoryPolicy}: under memory pressure Redis would silently evict exactly-once claims, silences and queued jobs (alerts lost or posted twice); set maxmemory-policy noeviction (redis.conf, CONFIG SET maxmemory-policy noeviction, or your provider's setting)`,
    );
  }
  return problems;
}

/**
 * Reads the server (every seed node of a `redis+cluster://` URL) and lists its problems; a server that
 * cannot be asked is not blocked here (the processes report it).
 */
export async function checkRedisServer(url: string): Promise<string[]> {
  const cluster = clusterNodesOf(url);
  const targets = cluster
    ? cluster.nodes.map((node) => {
        const auth = cluster.password ? `${encodeURIComponent(cluster.username ?? '')}:${encodeURIComponent(cluster.password)}@` : '';
        return `redis://${auth}${node.host.includes(':') ? `[${node.host}]` : node.host}:${node.port}`;
      })
    : [url];
  const problems = new Set<string>();
  for (const target of targets) {
    try {
      for (const problem of redisServerProblems(await readRedisServerFacts(target))) problems.add(problem);
    } catch {
      // Not answering: the processes report it.
    }
  }
  return [...problems];
}
