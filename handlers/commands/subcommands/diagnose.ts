/** `/stream diagnose [progress JSON]`: the engine's report on pasted JSON or the last file shared here. */
import { escapeMrkdwn } from '../../../src/slack/mrkdwn.js';
import { DiagnoseInputError, diagnoseText, downloadSharedFile } from '../../../src/slack/operations/diagnose-input.js';
import { replyPrivately, type CommandContext } from '../command-context.js';

export async function diagnoseSubcommand(ctx: CommandContext, input: string): Promise<void> {
  if (input !== '') return replyPrivately(ctx, await diagnoseText(input, ctx.deps, 'the pasted text'));
  const shared = await ctx.deps.store.sharedFiles.last(ctx.channelId);
  if (!shared || !ctx.botToken) {
    return replyPrivately(
      ctx,
      `Paste progress JSON after \`${ctx.command} diagnose\` (one object, an array, or JSON Lines), or share a \`.json\`/\`.jsonl\` file in this channel and run \`${ctx.command} diagnose\` again.`,
    );
  }
  try {
    const file = await downloadSharedFile(ctx.client, ctx.deps, shared.fileId, ctx.botToken);
    await replyPrivately(ctx, await diagnoseText(file.text, ctx.deps, file.name));
  } catch (error) {
    if (error instanceof DiagnoseInputError) return replyPrivately(ctx, `Could not read the shared file: ${escapeMrkdwn(error.message)}`);
    throw error;
  }
}
