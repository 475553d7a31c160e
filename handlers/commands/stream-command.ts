/**
 * The `/stream` listener: acks at once (Slack's 3 s), parses the text, and answers through
 * response_url: privately for questions; changes others should see are told where the stream
 * alerts (announce-change.ts).
 */
import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { parseStreamCommand } from '../../src/slack/command-text.js';
import type { SlackDeps } from '../../src/slack/deps.js';
import { renderHelp, renderUsage } from '../../src/slack/render/help.js';
import { replyPrivately, type CommandContext } from './command-context.js';
import { ackSubcommand } from './subcommands/ack.js';
import { diagnoseSubcommand } from './subcommands/diagnose.js';
import { digestSubcommand } from './subcommands/digest.js';
import { muteSubcommand, unmuteSubcommand } from './subcommands/mute.js';
import { statusSubcommand } from './subcommands/status.js';
import { tuneSubcommand } from './subcommands/tune.js';
import { unwatchSubcommand, watchSubcommand } from './subcommands/watch.js';

export type CommandArgs = SlackCommandMiddlewareArgs & AllMiddlewareArgs;

export async function streamCommand(args: CommandArgs, deps: SlackDeps): Promise<void> {
  await args.ack();
  const { command } = args;
  const ctx: CommandContext = {
    userId: command.user_id,
    channelId: command.channel_id,
    channelName: command.channel_name,
    client: args.client,
    respond: args.respond,
    deps,
    botToken: args.context.botToken,
    command: command.command || deps.command || '/stream',
  };
  const parsed = parseStreamCommand(command.text);
  deps.logger.info({ command: ctx.command, subcommand: parsed.name, user: ctx.userId, channel: ctx.channelId }, 'slash command');
  switch (parsed.name) {
    case 'help':
      return replyPrivately(ctx, renderHelp(ctx.command));
    case 'invalid':
      return replyPrivately(ctx, renderUsage(parsed.reason, parsed.subcommand, ctx.command));
    case 'status':
      return statusSubcommand(ctx, parsed.query, parsed.all);
    case 'tune':
      return tuneSubcommand(ctx, parsed.query);
    case 'diagnose':
      return diagnoseSubcommand(ctx, parsed.input);
    case 'mute':
      return muteSubcommand(ctx, parsed.query, parsed.durationMs, parsed.durationText);
    case 'unmute':
      return unmuteSubcommand(ctx, parsed.query);
    case 'ack':
      return ackSubcommand(ctx, parsed.query);
    case 'watch':
      return watchSubcommand(ctx, parsed.target, parsed.channel);
    case 'unwatch':
      return unwatchSubcommand(ctx, parsed.target, parsed.channel);
    case 'digest':
      return digestSubcommand(ctx);
  }
}
