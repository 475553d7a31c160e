/** Events API listeners. */
import type { App } from '@slack/bolt';
import type { SlackDeps } from '../../src/slack/deps.js';
import { guardListener } from '../../src/slack/listener-guard.js';
import { appHomeOpened, type AppHomeOpenedArgs } from './app-home-opened.js';
import { fileShared, type FileSharedArgs } from './file-shared.js';

export function register(app: App, deps: SlackDeps): void {
  app.event('app_home_opened', guardListener<AppHomeOpenedArgs>('event:app_home_opened', deps.logger, (args) => appHomeOpened(args, deps)));
  app.event('file_shared', guardListener<FileSharedArgs>('event:file_shared', deps.logger, (args) => fileShared(args, deps)));
}
