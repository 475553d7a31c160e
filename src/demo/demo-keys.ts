/**
 * Each demo run gets its own Redis prefix, so a demo never mixes with a previous run (or with a real
 * deployment on the same Redis), and deletes exactly its own keys when it stops.
 */
import { Redis } from 'ioredis';

/** A fresh prefix, e.g. `sd-demo-m3x1k2`. */
export function demoPrefix(nowMs: number = Date.now()): string {
  return `sd-demo-${nowMs.toString(36)}`;
}

/**
 * Deletes the store keys (`<prefix>:…`) and BullMQ keys (`{<prefix>}:…`) of one prefix, by SCAN
 * (never KEYS, never FLUSH*). Bounded: stops after `maxKeys`. Returns how many were deleted.
 */
export async function deletePrefixedKeys(redisUrl: string, prefix: string, maxKeys = 200_000): Promise<number> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true, connectTimeout: 2_000 });
  redis.on('error', () => undefined);
  let deleted = 0;
  try {
    await redis.connect();
    // Glob-escape the prefix: braces and brackets are literal in our names.
    const escape = (text: string) => text.replace(/[*?[\]\\]/g, '\\$&');
    for (const pattern of [`${escape(prefix)}:*`, `{${escape(prefix)}}:*`]) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
        cursor = next;
        if (keys.length > 0) deleted += await redis.unlink(...keys);
      } while (cursor !== '0' && deleted < maxKeys);
    }
  } finally {
    redis.disconnect();
  }
  return deleted;
}
