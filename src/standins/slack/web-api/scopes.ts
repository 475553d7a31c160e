/**
 * Bot token scopes, checked per method as Slack does: a method the token lacks the scope for answers
 * `missing_scope` (with `needed` and `provided`). Methods whose scope depends on the conversation
 * (history of a public vs a private channel) check it in their handler with `requireScope`. The
 * default bot holds exactly the scopes `manifest.yml` grants, so the tests see what a real install
 * sees.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { BotIdentity, WorkspaceChannel } from '../types.js';
import { SlackMethodError } from './method-error.js';

/** Scopes a method needs whatever the channel (empty: none). Channel-dependent ones are checked in the handler. */
export const METHOD_SCOPES: Readonly<Record<string, readonly string[]>> = {
  'auth.test': [],
  'chat.postMessage': ['chat:write'],
  'chat.update': ['chat:write'],
  'chat.delete': ['chat:write'],
  'chat.postEphemeral': ['chat:write'],
  'chat.getPermalink': [],
  'views.publish': [],
  'views.open': [],
  'views.push': [],
  'views.update': [],
  'files.getUploadURLExternal': ['files:write'],
  'files.completeUploadExternal': ['files:write'],
  'files.info': ['files:read'],
  'conversations.join': ['channels:join'],
  'users.info': ['users:read'],
  'usergroups.users.list': ['usergroups:read'],
};

/** `missing_scope` unless the bot holds every scope (a bot without a scope list holds them all). */
export function requireScope(bot: BotIdentity, ...needed: string[]): void {
  const granted = bot.scopes;
  if (!granted) return;
  const missing = needed.filter((scope) => !granted.includes(scope));
  if (missing.length > 0) throw new SlackMethodError('missing_scope', { needed: missing.join(','), provided: granted.join(',') });
}

/** The read scope of a conversation's kind: `channels:<what>` for public, `groups:<what>` for private. */
export function conversationScope(channel: WorkspaceChannel, what: 'read' | 'history'): string {
  return `${channel.isPrivate ? 'groups' : 'channels'}:${what}`;
}

/** The bot scopes `manifest.yml` grants (oauth_config.scopes.bot); null when it cannot be read. */
export function manifestBotScopes(path: URL = new URL('../../../../manifest.yml', import.meta.url)): string[] | null {
  try {
    const manifest = parse(readFileSync(path, 'utf8')) as { oauth_config?: { scopes?: { bot?: unknown } } };
    const scopes = manifest?.oauth_config?.scopes?.bot;
    return Array.isArray(scopes) && scopes.every((s) => typeof s === 'string') ? (scopes as string[]) : null;
  } catch {
    return null;
  }
}
