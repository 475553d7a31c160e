/**
 * A Lua script run with EVALSHA, falling back to EVAL when the server does not know it yet
 * (first use, or after a Redis restart flushed the script cache).
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

interface BufferScripting {
  evalshaBuffer(sha: string, numKeys: number, ...rest: (string | number | Buffer)[]): Promise<unknown>;
  evalBuffer(source: string, numKeys: number, ...rest: (string | number | Buffer)[]): Promise<unknown>;
}

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

  /** As `run`, with bulk replies as Buffers (binary values such as deflated inbox entries). */
  async runBuffer(redis: Redis, keys: string[], args: (string | number | Buffer)[]): Promise<unknown> {
    // ioredis defines the *Buffer variants at runtime without typing them; `callBuffer` is no
    // substitute (auto-pipelining drops its command name).
    const client = redis as unknown as BufferScripting;
    try {
      return await client.evalshaBuffer(this.sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (err instanceof Error && err.message.includes('NOSCRIPT')) {
        return client.evalBuffer(this.source, keys.length, ...keys, ...args);
      }
      throw err;
    }
  }
}
