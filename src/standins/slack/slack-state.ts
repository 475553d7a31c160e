/**
 * Everything the local Slack remembers, in memory: the workspace (channels, users, bots), messages and
 * threads, ephemerals, views, files and the log of Web API calls. Every change bumps `version` and emits
 * `change`, which drives the chat view's live updates. Collections are capped so a long demo stays small.
 */
import { EventEmitter } from 'node:events';
import { IdGenerator } from './ids.js';
import { MessageTsClock } from './message-ts-clock.js';
import type {
  ApiCallRecord,
  BotIdentity,
  EphemeralMessage,
  StoredFile,
  StoredMessage,
  StoredView,
  WorkspaceChannel,
  WorkspaceUser,
} from './types.js';

export interface StateLimits {
  /** Messages kept per channel (oldest dropped first). @defaultValue 5000 */
  messagesPerChannel?: number;
  /** Web API calls kept in the log. @defaultValue 2000 */
  calls?: number;
  /** Files kept. @defaultValue 500 */
  files?: number;
}

export interface StateChange {
  kind: 'message' | 'ephemeral' | 'view' | 'file' | 'workspace';
  channel?: string;
  user?: string;
}

export class SlackState extends EventEmitter {
  readonly ids = new IdGenerator();
  readonly tsClock = new MessageTsClock();
  version = 0;

  private readonly channelsById = new Map<string, WorkspaceChannel>();
  private readonly usersById = new Map<string, WorkspaceUser>();
  private readonly botsByToken = new Map<string, BotIdentity>();
  private readonly messagesByChannel = new Map<string, StoredMessage[]>();
  private readonly ephemeralList: EphemeralMessage[] = [];
  private readonly viewsById = new Map<string, StoredView>();
  /** Open modal stack per user, top last. */
  private readonly modalStacks = new Map<string, string[]>();
  private readonly homeByUser = new Map<string, string>();
  private readonly filesById = new Map<string, StoredFile>();
  private readonly callLog: ApiCallRecord[] = [];
  private readonly limits: Required<StateLimits>;

  constructor(
    workspace: { channels: WorkspaceChannel[]; users: WorkspaceUser[]; bots: BotIdentity[] },
    limits: StateLimits = {},
  ) {
    super();
    // Each chat view tab and each waitForMessage listens; more than Node's default 10 is normal here.
    this.setMaxListeners(200);
    this.limits = { messagesPerChannel: 5000, calls: 2000, files: 500, ...limits };
    // Copies: a join changes membership in this workspace only, never the caller's channel list.
    for (const c of workspace.channels) this.channelsById.set(c.id, { ...c, ...(c.members ? { members: [...c.members] } : {}) });
    for (const u of workspace.users) this.usersById.set(u.id, u);
    for (const b of workspace.bots) this.botsByToken.set(b.token, b);
  }

  // ── workspace ────────────────────────────────────────────────────────────────────────────────
  channel(idOrName: string): WorkspaceChannel | undefined {
    const byId = this.channelsById.get(idOrName);
    if (byId) return byId;
    const name = idOrName.replace(/^#/, '');
    return [...this.channelsById.values()].find((c) => c.name === name);
  }

  channels(): WorkspaceChannel[] {
    return [...this.channelsById.values()];
  }

  channelMembers(channel: WorkspaceChannel): string[] {
    return channel.members ?? [...this.usersById.keys()];
  }

  user(id: string): WorkspaceUser | undefined {
    return this.usersById.get(id);
  }

  users(): WorkspaceUser[] {
    return [...this.usersById.values()];
  }

  botByToken(token: string): BotIdentity | undefined {
    return this.botsByToken.get(token);
  }

  botByUserId(userId: string): BotIdentity | undefined {
    return [...this.botsByToken.values()].find((b) => b.userId === userId);
  }

  bots(): BotIdentity[] {
    return [...this.botsByToken.values()];
  }

  // ── messages ─────────────────────────────────────────────────────────────────────────────────
  nextTs(nowMs: number): string {
    return this.tsClock.next(nowMs);
  }

  addMessage(message: StoredMessage): StoredMessage {
    const list = this.messagesByChannel.get(message.channel) ?? [];
    list.push(message);
    if (list.length > this.limits.messagesPerChannel) list.splice(0, list.length - this.limits.messagesPerChannel);
    this.messagesByChannel.set(message.channel, list);
    if (message.thread_ts && message.thread_ts !== message.ts) {
      const parent = this.findMessage(message.channel, message.thread_ts);
      if (parent) {
        parent.thread_ts = parent.ts;
        parent.reply_count = (parent.reply_count ?? 0) + 1;
        parent.latest_reply = message.ts;
        const users = new Set(parent.reply_users ?? []);
        users.add(message.user);
        parent.reply_users = [...users];
      }
    }
    this.changed({ kind: 'message', channel: message.channel });
    return message;
  }

  findMessage(channel: string, ts: string): StoredMessage | undefined {
    return this.messagesByChannel.get(channel)?.find((m) => m.ts === ts);
  }

  /** Replaces fields of an existing message in place (chat.update, replace_original). */
  updateMessage(channel: string, ts: string, patch: Partial<StoredMessage>): StoredMessage | undefined {
    const message = this.findMessage(channel, ts);
    if (!message) return undefined;
    Object.assign(message, patch);
    this.changed({ kind: 'message', channel });
    return message;
  }

  deleteMessage(channel: string, ts: string): boolean {
    const list = this.messagesByChannel.get(channel);
    if (!list) return false;
    const index = list.findIndex((m) => m.ts === ts);
    if (index < 0) return false;
    list.splice(index, 1);
    this.changed({ kind: 'message', channel });
    return true;
  }

  /** Top-level messages of a channel (thread replies excluded unless broadcast), oldest first. */
  messages(channel: string): StoredMessage[] {
    return (this.messagesByChannel.get(channel) ?? []).filter(
      (m) => !m.thread_ts || m.thread_ts === m.ts || m.reply_broadcast,
    );
  }

  /** Every message of every channel (replies included), oldest first per channel. */
  allMessages(): StoredMessage[] {
    return [...this.messagesByChannel.values()].flat();
  }

  /** The parent and its replies, oldest first. */
  thread(channel: string, ts: string): StoredMessage[] {
    return (this.messagesByChannel.get(channel) ?? []).filter((m) => m.ts === ts || m.thread_ts === ts);
  }

  // ── ephemerals ───────────────────────────────────────────────────────────────────────────────
  addEphemeral(message: EphemeralMessage): EphemeralMessage {
    this.ephemeralList.push(message);
    if (this.ephemeralList.length > this.limits.messagesPerChannel) this.ephemeralList.shift();
    this.changed({ kind: 'ephemeral', channel: message.channel, user: message.user });
    return message;
  }

  ephemerals(channel?: string, user?: string): EphemeralMessage[] {
    return this.ephemeralList.filter(
      (e) => !e.deleted && (!channel || e.channel === channel) && (!user || e.user === user),
    );
  }

  findEphemeral(channel: string, ts: string): EphemeralMessage | undefined {
    return this.ephemeralList.find((e) => e.channel === channel && e.ts === ts && !e.deleted);
  }

  touchEphemeral(e: EphemeralMessage): void {
    this.changed({ kind: 'ephemeral', channel: e.channel, user: e.user });
  }

  // ── views ────────────────────────────────────────────────────────────────────────────────────
  putView(view: StoredView): StoredView {
    this.viewsById.set(view.id, view);
    if (view.type === 'home') this.homeByUser.set(view.user, view.id);
    this.changed({ kind: 'view', user: view.user });
    return view;
  }

  view(id: string): StoredView | undefined {
    return this.viewsById.get(id);
  }

  viewByExternalId(externalId: string): StoredView | undefined {
    return [...this.viewsById.values()].find((v) => v.external_id === externalId);
  }

  views(): StoredView[] {
    return [...this.viewsById.values()];
  }

  homeView(user: string): StoredView | undefined {
    const id = this.homeByUser.get(user);
    return id ? this.viewsById.get(id) : undefined;
  }

  /** The user's open modals, bottom first. */
  modalStack(user: string): StoredView[] {
    return (this.modalStacks.get(user) ?? []).map((id) => this.viewsById.get(id)).filter((v): v is StoredView => !!v);
  }

  pushModal(user: string, viewId: string): void {
    const stack = this.modalStacks.get(user) ?? [];
    stack.push(viewId);
    this.modalStacks.set(user, stack);
    this.changed({ kind: 'view', user });
  }

  /** Closes the top modal, or all of them. */
  closeModal(user: string, all = false): void {
    const stack = this.modalStacks.get(user) ?? [];
    if (all) stack.length = 0;
    else stack.pop();
    this.modalStacks.set(user, stack);
    this.changed({ kind: 'view', user });
  }

  touchView(view: StoredView): void {
    this.changed({ kind: 'view', user: view.user });
  }

  // ── files ────────────────────────────────────────────────────────────────────────────────────
  putFile(file: StoredFile): StoredFile {
    this.filesById.set(file.id, file);
    if (this.filesById.size > this.limits.files) {
      const oldest = this.filesById.keys().next().value;
      if (oldest !== undefined) this.filesById.delete(oldest);
    }
    this.changed({ kind: 'file' });
    return file;
  }

  file(id: string): StoredFile | undefined {
    return this.filesById.get(id);
  }

  files(): StoredFile[] {
    return [...this.filesById.values()];
  }

  // ── call log ─────────────────────────────────────────────────────────────────────────────────
  logCall(record: ApiCallRecord): void {
    this.callLog.push(record);
    if (this.callLog.length > this.limits.calls) this.callLog.shift();
  }

  calls(method?: string): ApiCallRecord[] {
    return method ? this.callLog.filter((c) => c.method === method) : [...this.callLog];
  }

  private changed(change: StateChange): void {
    this.version += 1;
    this.emit('change', { ...change, version: this.version });
  }
}
