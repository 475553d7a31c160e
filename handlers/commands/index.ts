/** Slash command listeners. */
import type { App } from '@slack/bolt';
import type { SlackDeps } from '../../src/slack/deps.js';
import { guardListener } from '../../src/slack/listener-guard.js';
import { streamCommand, type CommandArgs } from './stream-command.js';

export function register(app: App, deps: SlackDeps): void {
  const name = deps.command ?? '/stream';
  app.command(name, guardListener<CommandArgs>('command:stream', deps.logger, (args) => streamCommand(args, deps)));
}
