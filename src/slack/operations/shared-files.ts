/**
 * The last file shared in each channel (from `file_shared` events), so `/stream diagnose` with no
 * pasted text can read it. Kept 24 h under the store's prefix: `<prefix>:slack:last-file:<channel>`.
 */
import type { SlackDeps } from '../deps.js';

export interface SharedFileRef {
  fileId: string;
  userId: string | null;
  atMs: number;
}

const TTL_MS = 24 * 3_600_000;

function key(deps: SlackDeps, channel: string): string {
  return `${deps.store.keys.prefix}:slack:last-file:${channel}`;
}

export async function rememberSharedFile(deps: SlackDeps, channel: string, ref: SharedFileRef): Promise<void> {
  await deps.store.redis.set(key(deps, channel), JSON.stringify(ref), 'PX', TTL_MS);
}

export async function lastSharedFile(deps: SlackDeps, channel: string): Promise<SharedFileRef | null> {
  const text = await deps.store.redis.get(key(deps, channel));
  if (!text) return null;
  try {
    const parsed = JSON.parse(text) as SharedFileRef;
    return typeof parsed.fileId === 'string' ? parsed : null;
  } catch {
    return null;
  }
}
