/** Each progress source's cursor between polls, as the JSON text the poll step writes. */
import type { Redis } from 'ioredis';
import type { StoreKeys } from './keys.js';

export class CursorStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: StoreKeys,
  ) {}

  get(sourceId: string): Promise<string | null> {
    return this.redis.get(this.keys.sourceCursor(sourceId));
  }

  /** `null` forgets the cursor: the next poll starts from the source's initial window. */
  async set(sourceId: string, cursor: string | null): Promise<void> {
    if (cursor === null) await this.redis.del(this.keys.sourceCursor(sourceId));
    else await this.redis.set(this.keys.sourceCursor(sourceId), cursor);
  }
}
