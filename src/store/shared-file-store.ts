/**
 * The last file shared in each Slack channel (from `file_shared` events), so `/stream diagnose` with
 * no pasted text can read it. Kept 24 h.
 */
import type { Redis } from 'ioredis';
import type { StoreKeys } from './keys.js';

export interface SharedFileRef {
  fileId: string;
  userId: string | null;
  atMs: number;
}

const TTL_MS = 24 * 3_600_000;

export class SharedFileStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: StoreKeys,
  ) {}

  async remember(channel: string, ref: SharedFileRef): Promise<void> {
    await this.redis.set(this.keys.lastSharedFile(channel), JSON.stringify(ref), 'PX', TTL_MS);
  }

  async last(channel: string): Promise<SharedFileRef | null> {
    const text = await this.redis.get(this.keys.lastSharedFile(channel));
    if (!text) return null;
    try {
      const parsed = JSON.parse(text) as SharedFileRef;
      return typeof parsed.fileId === 'string' ? parsed : null;
    } catch {
      return null;
    }
  }
}
