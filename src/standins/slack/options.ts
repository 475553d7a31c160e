/**
 * Options of the local Slack and their defaults. A demo workspace is built in so
 * `streamdoctor local-slack` works with no configuration.
 */
import { EVENT_RETRY_DELAYS_MS } from './event-redelivery.js';
import type { BotIdentity, WorkspaceChannel, WorkspaceUser, WorkspaceUserGroup } from './types.js';
import { manifestBotScopes } from './web-api/scopes.js';
import { METHOD_BUDGETS } from './method-budgets.js';

export interface RateLimitOptions {
  /** Messages per second per channel for chat.postMessage. @defaultValue 1 */
  perSecond?: number;
  /** Extra messages a channel may send in a burst before 429s start. @defaultValue 4 */
  burst?: number;
  /** chat.update calls per minute per workspace and app (Tier 3, "50+ per minute"). @defaultValue 50 */
  updatesPerMinute?: number;
  /**
   * Calls per minute per workspace and app by Web API method, over their tier's floor (a test that
   * must spend a budget quickly, or one that must not meet it); chat.update's here wins over
   * `updatesPerMinute`. @defaultValue METHOD_BUDGETS
   */
  methodsPerMinute?: Readonly<Record<string, number>>;
}

export interface LocalSlackOptions {
  /** Interface to listen on. @defaultValue '127.0.0.1' */
  host?: string;
  /** Port; 0 picks a free one. @defaultValue 0 */
  port?: number;
  /** Team (workspace) id. @defaultValue 'T0STREAMDR' */
  teamId?: string;
  /** Team domain. @defaultValue 'streamdoctor-demo' */
  teamDomain?: string;
  /** Channels that exist. @defaultValue #data-alerts, #streaming, #general */
  channels?: WorkspaceChannel[];
  /** Users that exist. @defaultValue three demo users */
  users?: WorkspaceUser[];
  /** User groups (`usergroups.users.list`). @defaultValue none */
  userGroups?: WorkspaceUserGroup[];
  /** Bot installations whose tokens the Web API accepts. @defaultValue one StreamDoctor bot with token 'xoxb-local-streamdoctor' and the scopes of manifest.yml */
  bots?: BotIdentity[];
  /** Signing secret used to sign requests into the app. @defaultValue 'local-signing-secret' */
  signingSecret?: string;
  /** The app's request URL (commands, interactivity, events). Can be set later with `setRequestUrl`. */
  requestUrl?: string;
  /** Slash command the chat view's command box sends. @defaultValue '/stream' */
  command?: string;
  /** Web API rate limits (chat.postMessage per channel, every other method by its tier), or false to disable them. @defaultValue { perSecond: 1, burst: 4, updatesPerMinute: 50, methodsPerMinute: METHOD_BUDGETS } */
  rateLimit?: RateLimitOptions | false;
  /**
   * Waits before each redelivery of an event the app did not answer with a 2xx within 3 s (at most
   * 3 retries, as Slack; shorter waits for tests, [] for none). @defaultValue [0, 60000, 300000]
   */
  eventRetryDelaysMs?: readonly number[];
  /** Clock in ms, swappable for tests. @defaultValue Date.now */
  now?: () => number;
  /** Legacy verification token put in payloads. @defaultValue 'local-verification-token' */
  verificationToken?: string;
  /** The user the chat view acts as first. @defaultValue the first user */
  defaultUser?: string;
}

export interface ResolvedOptions {
  host: string;
  port: number;
  teamId: string;
  teamDomain: string;
  channels: WorkspaceChannel[];
  users: WorkspaceUser[];
  userGroups: WorkspaceUserGroup[];
  bots: BotIdentity[];
  signingSecret: string;
  requestUrl: string | undefined;
  command: string;
  rateLimit: Required<RateLimitOptions> | false;
  eventRetryDelaysMs: readonly number[];
  now: () => number;
  verificationToken: string;
  defaultUser: string;
}

/** The StreamDoctor bot as installed from manifest.yml: its token holds exactly the manifest's bot scopes. */
export const DEFAULT_BOT: BotIdentity = {
  token: 'xoxb-local-streamdoctor',
  userId: 'U0SDBOT001',
  botId: 'B0SDBOT001',
  appId: 'A0SDAPP001',
  name: 'StreamDoctor',
  ...(() => {
    const scopes = manifestBotScopes();
    return scopes ? { scopes } : {};
  })(),
};

export const DEFAULT_USERS: WorkspaceUser[] = [
  { id: 'U0MARIA001', name: 'maria', realName: 'Maria Costa', tz: 'Europe/Lisbon' },
  { id: 'U0DEV00002', name: 'dev', realName: 'Dev Patel', tz: 'Asia/Kolkata' },
  { id: 'U0SAM00003', name: 'sam', realName: 'Sam Okafor', tz: 'America/New_York' },
];

export const DEFAULT_CHANNELS: WorkspaceChannel[] = [
  { id: 'C0DATAALRT', name: 'data-alerts', purpose: 'Streaming incidents from StreamDoctor' },
  { id: 'C0STREAMNG', name: 'streaming', purpose: 'Structured Streaming jobs and their owners' },
  { id: 'C0GENERAL1', name: 'general', purpose: 'Everything else' },
];

const ID_PATTERN = /^[A-Z][A-Z0-9]{2,}$/;

/** Fills defaults and checks the ids look like Slack ids; throws a clear error otherwise. */
export function resolveOptions(options: LocalSlackOptions = {}): ResolvedOptions {
  const users = options.users ?? DEFAULT_USERS;
  const channels = options.channels ?? DEFAULT_CHANNELS;
  const bots = options.bots ?? [DEFAULT_BOT];
  for (const c of channels) {
    if (!ID_PATTERN.test(c.id) || !/^[CGD]/.test(c.id)) {
      throw new Error(`streamdoctor_local_slack_bad_option: channel id "${c.id}" must look like C0123ABCD`);
    }
  }
  for (const u of users) {
    if (!ID_PATTERN.test(u.id) || !/^[UW]/.test(u.id)) {
      throw new Error(`streamdoctor_local_slack_bad_option: user id "${u.id}" must look like U0123ABCD`);
    }
  }
  if (bots.length === 0) throw new Error('streamdoctor_local_slack_bad_option: at least one bot is needed');
  for (const b of bots) {
    if (!b.token.startsWith('xoxb-')) {
      throw new Error(`streamdoctor_local_slack_bad_option: bot "${b.name}" token must start with xoxb-`);
    }
  }
  const retryDelays = options.eventRetryDelaysMs ?? EVENT_RETRY_DELAYS_MS;
  if (retryDelays.length > EVENT_RETRY_DELAYS_MS.length || retryDelays.some((ms) => !(ms >= 0 && Number.isFinite(ms)))) {
    throw new Error(`streamdoctor_local_slack_bad_option: eventRetryDelaysMs takes at most ${EVENT_RETRY_DELAYS_MS.length} waits of 0 ms or more`);
  }
  const rate = options.rateLimit === false ? false : resolveRateLimit(options.rateLimit ?? {});
  return {
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 0,
    teamId: options.teamId ?? 'T0STREAMDR',
    teamDomain: options.teamDomain ?? 'streamdoctor-demo',
    channels,
    users,
    userGroups: options.userGroups ?? [],
    bots,
    signingSecret: options.signingSecret ?? 'local-signing-secret',
    requestUrl: options.requestUrl,
    command: options.command ?? '/stream',
    rateLimit: rate,
    eventRetryDelaysMs: retryDelays,
    now: options.now ?? Date.now,
    verificationToken: options.verificationToken ?? 'local-verification-token',
    defaultUser: options.defaultUser ?? users[0]?.id ?? 'U0MARIA001',
  };
}

function resolveRateLimit(given: RateLimitOptions): Required<RateLimitOptions> {
  const updatesPerMinute = given.updatesPerMinute ?? 50;
  for (const [method, budget] of Object.entries(given.methodsPerMinute ?? {})) {
    if (!Object.hasOwn(METHOD_BUDGETS, method)) throw new Error(`streamdoctor_local_slack_bad_option: methodsPerMinute names ${method}, which has no per-minute budget here`);
    if (!(Number.isInteger(budget) && budget >= 1)) throw new Error(`streamdoctor_local_slack_bad_option: methodsPerMinute.${method} must be an integer >= 1`);
  }
  return {
    perSecond: given.perSecond ?? 1,
    burst: given.burst ?? 4,
    updatesPerMinute,
    methodsPerMinute: { ...METHOD_BUDGETS, 'chat.update': updatesPerMinute, ...(given.methodsPerMinute ?? {}) },
  };
}
