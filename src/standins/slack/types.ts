/**
 * The shapes the local Slack keeps in memory. They mirror what the real Web API returns, so the
 * programmatic API, the admin JSON API and the chat view all read the same objects.
 */

/** A Block Kit block or element as sent by the app: untrusted JSON. */
export type Json = Record<string, unknown>;

export interface WorkspaceChannel {
  /** Slack channel id, e.g. `C0123ABCD`. */
  id: string;
  /** Name without `#`. */
  name: string;
  /** @defaultValue false */
  isPrivate?: boolean;
  /** Purpose shown in the chat view. */
  purpose?: string;
  /** Member user ids. @defaultValue every configured user */
  members?: string[];
  /** Archived channels stay listed (`is_archived`) unless a call excludes them. @defaultValue false */
  isArchived?: boolean;
}

export interface WorkspaceUser {
  /** Slack user id, e.g. `U0123ABCD`. */
  id: string;
  /** Handle, e.g. `maria`. */
  name: string;
  /** Full name. @defaultValue name */
  realName?: string;
  /** IANA time zone. @defaultValue 'UTC' */
  tz?: string;
  /** @defaultValue false */
  isAdmin?: boolean;
}

/** A user group (`S…`), for `usergroups.users.list`. */
export interface WorkspaceUserGroup {
  /** Slack user group id, e.g. `S0123ABCD`. */
  id: string;
  /** Handle, e.g. `data-oncall`. */
  handle: string;
  /** Member user ids. */
  users: string[];
}

/** One bot installation: a token the Web API accepts and the identity it posts as. */
export interface BotIdentity {
  /** `xoxb-…` bot token. */
  token: string;
  /** Bot user id (`U…`). */
  userId: string;
  /** Bot id (`B…`). */
  botId: string;
  /** App id (`A…`). */
  appId: string;
  /** Display name. */
  name: string;
  /**
   * Bot token scopes granted at install, checked per method (web-api/scopes.ts): a call without its
   * scope answers `missing_scope` like Slack. @defaultValue every scope (DEFAULT_BOT: manifest.yml's)
   */
  scopes?: string[];
}

export interface StoredFile {
  id: string;
  name: string;
  title: string;
  mimetype: string;
  filetype: string;
  size: number;
  /** Who uploaded it: a bot user id or a user id. */
  user: string;
  created: number;
  altText?: string;
  /** Set once files.completeUploadExternal (or a user share) ran. */
  completed: boolean;
  /** Channels the file was shared to. */
  channels: string[];
  bytes: Buffer;
}

/** A file as the Web API describes it (never the bytes). */
export interface FileObject {
  id: string;
  name: string;
  title: string;
  mimetype: string;
  filetype: string;
  size: number;
  user: string;
  created: number;
  url_private: string;
  url_private_download: string;
  permalink: string;
  is_public: boolean;
  alt_txt?: string;
}

export interface StoredMessage {
  type: 'message';
  channel: string;
  ts: string;
  text: string;
  blocks?: Json[];
  attachments?: Json[];
  /** Poster: the bot user id for bot messages, the user id otherwise. */
  user: string;
  bot_id?: string;
  app_id?: string;
  /** Set on thread replies. */
  thread_ts?: string;
  reply_count?: number;
  reply_users?: string[];
  latest_reply?: string;
  subtype?: string;
  files?: FileObject[];
  edited?: { user: string; ts: string };
  metadata?: Json;
  /** Replies that were also broadcast to the channel. */
  reply_broadcast?: boolean;
  /** Which token posted it: updates are only allowed with the same bot. */
  postedByToken?: string;
}

export interface EphemeralMessage {
  channel: string;
  /** The only user who sees it. */
  user: string;
  ts: string;
  text: string;
  blocks?: Json[];
  attachments?: Json[];
  thread_ts?: string;
  /** `chat.postEphemeral`, a slash command ack or a response_url reply. */
  source: 'chat.postEphemeral' | 'ack' | 'response_url' | 'command_echo';
  /** Set when this ephemeral came from a response_url that can still replace or delete it. */
  responseUrlId?: string;
  deleted?: boolean;
}

export interface StoredView {
  id: string;
  team_id: string;
  type: 'modal' | 'home';
  /** The user the view belongs to. */
  user: string;
  title?: Json;
  submit?: Json;
  close?: Json;
  blocks: Json[];
  private_metadata: string;
  callback_id: string;
  external_id: string;
  hash: string;
  notify_on_close: boolean;
  clear_on_close: boolean;
  state: { values: Record<string, Record<string, Json>> };
  app_id: string;
  bot_id: string;
  root_view_id: string;
  previous_view_id: string | null;
  /** Validation errors the app answered to the last submission, by block_id. */
  errors?: Record<string, string>;
}

export interface ApiCallRecord {
  /** Web API method, `upload`, or `response_url`. */
  method: string;
  at: number;
  /** Arguments with the token removed. */
  args: Json;
  ok: boolean;
  error?: string;
  /** HTTP status answered. */
  status: number;
}

export interface ResponseUrlRecord {
  id: string;
  url: string;
  channel: string;
  user: string;
  /** The message an interaction came from, for replace_original / delete_original. */
  messageTs?: string;
  fromEphemeral?: boolean;
  createdAt: number;
  uses: number;
  /** Every body posted to it, in order. */
  responses: Json[];
}
