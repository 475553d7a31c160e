/** file_shared: remembers the channel's latest file so `/stream diagnose` can read it. */
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { nowOf, type SlackDeps } from '../../src/slack/deps.js';

export type FileSharedArgs = SlackEventMiddlewareArgs<'file_shared'> & AllMiddlewareArgs;

export async function fileShared(args: FileSharedArgs, deps: SlackDeps): Promise<void> {
  const { event } = args;
  if (!event.channel_id || !event.file_id) return;
  await deps.store.sharedFiles.remember(event.channel_id, { fileId: event.file_id, userId: event.user_id ?? null, atMs: nowOf(deps) });
}
