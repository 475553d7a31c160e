/**
 * A Lua script run with EVALSHA, falling back to EVAL when the server does not know it yet
 * (first use, or after a Redis restart flushed the script cache).
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

export class LuaScript {
  readonly sha: string;
  constructor(readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(redis: Redis, keys: string[], args: (string | number | Buffer)[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (err instanceof Error && err.message.includes('NOSCRIPT')) {
        return redis.eval(this.source, keys.length, ...keys, ...args);
      }
      throw err;
    }
  }
}
