/**
 * `streamdoctor start`: web + worker + clock in one process, for a laptop or a single small machine.
 * Finds or starts a Redis. With no Slack or Databricks credentials (or `--demo`) it runs the demo
 * against the built-in stand-ins (src/demo/); with credentials it runs the whole bot
 * (src/runtime/start-bot.ts: watch-file sources, the Slack app, `startAll`) against the real services.
 */
import { runStartCommand } from '../../demo/start-command.js';

export async function run(argv: string[]): Promise<number> {
  return runStartCommand(argv);
}
