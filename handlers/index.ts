/** Registers every Slack listener: commands, actions, events and views. */
import type { App } from '@slack/bolt';
import type { SlackDeps } from '../src/slack/deps.js';
import { register as registerActions } from './actions/index.js';
import { register as registerCommands } from './commands/index.js';
import { register as registerEvents } from './events/index.js';
import { register as registerViews } from './views/index.js';

export function registerHandlers(app: App, deps: SlackDeps): void {
  registerCommands(app, deps);
  registerActions(app, deps);
  registerEvents(app, deps);
  registerViews(app, deps);
}
