/**
 * The environment StreamDoctor reads: one zod schema per variable (`ENV_VARIABLES`, whose names and
 * defaults docs/production.md's table is checked against), read by one pure function of `env`.
 * Nothing here throws: each problem (a malformed URL, half of an OAuth pair) is listed once in
 * `problems`, saying what to set, and the setting falls back to its default (src/config/defaults.ts).
 * Secrets are kept on the returned object but `describeEnvConfig` masks them for logs.
 */
import { z } from 'zod';
import { chooseDatabricksCredentials, DATABRICKS_AUTH_TYPES } from './databricks-auth.js';
import { DEFAULTS } from './defaults.js';
import { readRedisUrl, redactRedisUrl } from './redis-url.js';

export type DatabricksEnvAuth =
  | { kind: 'pat'; token: string }
  | { kind: 'oauth-m2m'; clientId: string; clientSecret: string };

/** The queues a worker process can serve. */
export const QUEUE_NAMES = ['poll', 'detect', 'notify', 'digest'] as const;
export type WorkerQueueName = (typeof QUEUE_NAMES)[number];

/** The pipeline's settings (poll cadence, digest, worker queues, storms, source health). */
export interface PipelineSettings {
  /** `STREAMDOCTOR_POLL_SECONDS` in ms. @defaultValue 60000 */
  pollEveryMs: number;
  /** `STREAMDOCTOR_DIGEST_AT`. @defaultValue '09:00' */
  digestAt: string;
  /** `STREAMDOCTOR_TIME_ZONE`. @defaultValue 'UTC' */
  timeZone: string;
  /** `STREAMDOCTOR_DEFAULT_CHANNEL`: channel for streams no rule routes. @defaultValue null */
  defaultChannel: string | null;
  /** `STREAMDOCTOR_WORKER_QUEUES`. @defaultValue null (all) */
  workerQueues: WorkerQueueName[] | null;
  /** `STREAMDOCTOR_STORM_WINDOW_SECONDS` in ms. @defaultValue 30000 */
  stormWindowMs: number;
  /** `STREAMDOCTOR_STORM_THRESHOLD`. @defaultValue 2 */
  stormThreshold: number;
  /** `STREAMDOCTOR_SOURCE_FAILING_SECONDS` in ms. @defaultValue 300000 */
  sourceFailingAfterMs: number;
}

export interface EnvConfig {
  databricks: {
    /** `DATABRICKS_HOST`, normalized to an origin (https:// added when missing). */
    host: string | null;
    /**
     * `DATABRICKS_TOKEN`, or `DATABRICKS_CLIENT_ID` + `DATABRICKS_CLIENT_SECRET`; both kinds at once are a
     * problem unless `DATABRICKS_AUTH_TYPE` (`pat` | `oauth-m2m`) picks one. Profiles of `~/.databrickscfg`
     * are resolved per workspace (`resolveDatabricksAuth`), not here.
     */
    auth: DatabricksEnvAuth | null;
    /** `DATABRICKS_WAREHOUSE_ID`: used when the watch file names none. */
    warehouseId: string | null;
  };
  slack: {
    botToken: string | null;
    signingSecret: string | null;
    /** `SLACK_APP_TOKEN` (xapp-…): Socket Mode when set. */
    appToken: string | null;
    /** `SLACK_API_URL`: Web API base, e.g. the local Slack's `http://127.0.0.1:port/api/`. */
    apiUrl: string | null;
  };
  /** `REDIS_URL`. @defaultValue null (the runtime discovers a local Redis) */
  redisUrl: string | null;
  /** `STREAMDOCTOR_CONFIG`: path of the watch file. @defaultValue null (no file: demo or env-only) */
  configPath: string | null;
  /** `STREAMDOCTOR_PREFIX`: Redis key / BullMQ queue prefix. @defaultValue 'sd' */
  prefix: string;
  /** `PORT`. @defaultValue 3000 */
  port: number;
  /** Whether `PORT` is set: a worker or clock serves its probes only then. */
  portSet: boolean;
  /** `LOG_LEVEL`. @defaultValue 'info' */
  logLevel: string;
  /**
   * `STREAMDOCTOR_ADMINS`: Slack user ids (`U…`/`W…`) and user group ids (`S…`), comma- or
   * space-separated, who alone may mute, unmute, watch and unwatch. @defaultValue none (anyone may)
   */
  admins: { users: string[]; userGroups: string[] };
  pipeline: PipelineSettings;
  /** Whether `STREAMDOCTOR_POLL_SECONDS` is set: it then wins over the watch file's `poll_interval`. */
  pollSecondsSet: boolean;
  /** True when neither Databricks nor Slack credentials are set: `start` runs the demo. */
  demo: boolean;
  /** Each problem found, with what to set instead. Empty when the environment is usable. */
  problems: string[];
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Fails the parse with `message` (the problem as people read it). */
function refuse(ctx: z.RefinementCtx, message: string): never {
  ctx.addIssue({ code: 'custom', message });
  return z.NEVER;
}

const text = () => z.string();

function urlOf(name: string, addScheme: boolean) {
  return z.string().transform((value, ctx) => {
    const candidate = addScheme && !/^[a-z]+:\/\//i.test(value) ? `https://${value}` : value;
    try {
      const parsed = new URL(candidate);
      return addScheme ? parsed.origin : candidate;
    } catch {
      return refuse(ctx, `${name} is not a URL ("${value.slice(0, 80)}"); set it like ${addScheme ? 'https://adb-1234567890123456.7.azuredatabricks.net' : 'http://127.0.0.1:3001/api/'}`);
    }
  });
}

/** Longest seconds setting: a week, well inside what a timer holds (2^31 - 1 ms, about 24.8 days). */
const MAX_SECONDS = 7 * 86_400;

/**
 * Seconds written as plain decimals (`30`, `0.5`): `Number` would also take `0x10`, `1e308` and
 * `0.0001`, which became 16 s, Infinity ms and 0 ms, and a schedule of 0 ms or Infinity fails later.
 */
function positiveSeconds(name: string) {
  return z.string().transform((value, ctx) => {
    const n = /^(\d+(\.\d*)?|\.\d+)$/.test(value) ? Number(value) : Number.NaN;
    return Math.round(n * 1000) >= 1 && n <= MAX_SECONDS
      ? n
      : refuse(ctx, `${name} must be a number of seconds from 0.001 to ${MAX_SECONDS} (7 days), written like 30 or 0.5; got "${value.slice(0, 40)}"`);
  });
}

/** A whole number written in decimal digits only: `Number` would read `0x50`, `3e3` and `0b1`. */
const wholeNumber = (value: string): number => (/^\d{1,15}$/.test(value) ? Number(value) : Number.NaN);

/** Ids of a list setting: the recognised ones, and the rest (a problem). */
function splitList<T>(value: string, separator: RegExp, accept: (item: string) => T | null): { ok: T[]; wrong: string[] } {
  const ok: T[] = [];
  const wrong: string[] = [];
  for (const item of value.split(separator).map((part) => part.trim()).filter(Boolean)) {
    const accepted = accept(item);
    if (accepted === null) wrong.push(item);
    else ok.push(accepted);
  }
  return { ok, wrong };
}

type Admins = EnvConfig['admins'];
const adminOf = (id: string): { user: string } | { group: string } | null =>
  /^[UW][A-Z0-9]{2,}$/.test(id) ? { user: id } : /^S[A-Z0-9]{2,}$/.test(id) ? { group: id } : null;
function adminsOf(items: ({ user: string } | { group: string })[]): Admins {
  return { users: items.flatMap((i) => ('user' in i ? [i.user] : [])), userGroups: items.flatMap((i) => ('group' in i ? [i.group] : [])) };
}
const queueOf = (name: string): WorkerQueueName | null => ((QUEUE_NAMES as readonly string[]).includes(name) ? (name as WorkerQueueName) : null);

/** One environment variable: how its (trimmed, non-blank) text is read, and its default as the docs show it. */
export interface EnvVariable<T> {
  schema: z.ZodType<T, string>;
  /** The "default" column of docs/production.md's table. */
  docDefault: string;
  /** What to use when the text is set but refused (the problem is listed either way). @defaultValue the default */
  lenient?: (text: string) => T;
}

const variable = <T>(schema: z.ZodType<T, string>, docDefault: string, lenient?: (text: string) => T): EnvVariable<T> => ({ schema, docDefault, ...(lenient ? { lenient } : {}) });

/**
 * Every environment variable StreamDoctor reads, in the order their problems are listed. The
 * credentials a watch file names by variable (`token_env: …`) are read where the workspace is
 * resolved (src/config/workspace-credentials.ts); `DATABRICKS_CONFIG_PROFILE` and
 * `DATABRICKS_CONFIG_FILE` by the profile reader (databricks-auth.ts, read-databricks-config-file.ts).
 */
export const ENV_VARIABLES = {
  SLACK_BOT_TOKEN: variable(text().refine((v) => v.startsWith('xoxb-'), 'SLACK_BOT_TOKEN should be a bot token starting with xoxb-'), '—', (v) => v),
  SLACK_SIGNING_SECRET: variable(text(), '—'),
  SLACK_APP_TOKEN: variable(text().refine((v) => v.startsWith('xapp-'), 'SLACK_APP_TOKEN should be an app-level token starting with xapp-'), '—', (v) => v),
  SLACK_API_URL: variable(urlOf('SLACK_API_URL', false), "Slack's"),
  STREAMDOCTOR_ADMINS: variable(
    z.string().transform((value, ctx) => {
      const { ok, wrong } = splitList(value, /[\s,]+/, adminOf);
      // A mistyped entry would silently leave someone out (or, alone, open the commands to everyone).
      if (wrong.length > 0) {
        return refuse(
          ctx,
          `STREAMDOCTOR_ADMINS holds ${wrong.map((id) => `"${id.slice(0, 40)}"`).join(', ')}, which ${wrong.length === 1 ? 'is' : 'are'} not a Slack user id (U…/W…) or user group id (S…); list ids like U024BE7LH,S0614TZR7 (a profile's "Copy member ID")`,
        );
      }
      return adminsOf(ok);
    }),
    'anyone',
    (value) => adminsOf(splitList(value, /[\s,]+/, adminOf).ok),
  ),
  DATABRICKS_HOST: variable(urlOf('DATABRICKS_HOST', true), '—'),
  DATABRICKS_TOKEN: variable(text(), '—'),
  DATABRICKS_CLIENT_ID: variable(text(), '—'),
  DATABRICKS_CLIENT_SECRET: variable(text(), '—'),
  DATABRICKS_AUTH_TYPE: variable(
    text().refine(
      (v) => (DATABRICKS_AUTH_TYPES as readonly string[]).includes(v.toLowerCase()),
      { error: (issue) => `DATABRICKS_AUTH_TYPE is "${String(issue.input).slice(0, 40)}"; StreamDoctor supports ${DATABRICKS_AUTH_TYPES.join(' and ')}: set one of them or remove it` },
    ),
    '—',
  ),
  DATABRICKS_CONFIG_PROFILE: variable(text(), '`DEFAULT`'),
  DATABRICKS_CONFIG_FILE: variable(text(), '`~/.databrickscfg`'),
  DATABRICKS_WAREHOUSE_ID: variable(text(), '—'),
  STREAMDOCTOR_CONFIG: variable(text(), '—'),
  // The same reading the Redis client makes (redis-url.ts): a URL accepted here is one it can open.
  REDIS_URL: variable(
    z.string().transform((value, ctx) => {
      const read = readRedisUrl(value);
      return read.kind === 'invalid' ? refuse(ctx, read.problem) : value;
    }),
    'discovered',
    (v) => v,
  ),
  STREAMDOCTOR_PREFIX: variable(
    text().refine((v) => /^[A-Za-z0-9:_-]{1,40}$/.test(v), {
      error: (issue) => `STREAMDOCTOR_PREFIX may hold letters, digits, ':', '_' and '-' (up to 40); got "${String(issue.input).slice(0, 60)}"`,
    }),
    `\`${DEFAULTS.prefix}\``,
    (v) => v,
  ),
  PORT: variable(
    z.string().transform((value, ctx) => {
      const n = wholeNumber(value);
      return n >= 0 && n <= 65535 ? n : refuse(ctx, `PORT must be a whole number from 0 to 65535 in decimal digits, e.g. PORT=3000; got "${value.slice(0, 40)}"`);
    }),
    `\`${DEFAULTS.port}\``,
  ),
  LOG_LEVEL: variable(
    z.string().transform((value, ctx) => {
      const level = value.toLowerCase();
      return LOG_LEVELS.includes(level) ? level : refuse(ctx, `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got "${level}"`);
    }),
    `\`${DEFAULTS.logLevel}\` (\`warn\` in the demo)`,
  ),
  STREAMDOCTOR_POLL_SECONDS: variable(positiveSeconds('STREAMDOCTOR_POLL_SECONDS'), "the watch file's `poll_interval`"),
  STREAMDOCTOR_DIGEST_AT: variable(
    text().refine((v) => /^([01]?\d|2[0-3]):[0-5]\d$/.test(v), { error: (issue) => `STREAMDOCTOR_DIGEST_AT must be HH:MM (24-hour), e.g. 09:00; got "${String(issue.input)}"` }),
    `\`${DEFAULTS.digestAt}\``,
  ),
  STREAMDOCTOR_TIME_ZONE: variable(
    z.string().transform((value, ctx) => {
      try {
        new Intl.DateTimeFormat('en', { timeZone: value });
        return value;
      } catch {
        return refuse(ctx, `STREAMDOCTOR_TIME_ZONE must be an IANA zone such as Europe/Lisbon; got "${value}"`);
      }
    }),
    `\`${DEFAULTS.timeZone}\``,
  ),
  STREAMDOCTOR_DEFAULT_CHANNEL: variable(text(), "the watch file's `defaults.channel`"),
  STREAMDOCTOR_WORKER_QUEUES: variable(
    z.string().transform((value, ctx) => {
      const { ok, wrong } = splitList(value, /,/, queueOf);
      return wrong.length > 0 ? refuse(ctx, `STREAMDOCTOR_WORKER_QUEUES: unknown queue(s) ${wrong.join(', ')}; use any of ${QUEUE_NAMES.join(', ')}`) : ok;
    }),
    'all',
    (value) => splitList(value, /,/, queueOf).ok,
  ),
  STREAMDOCTOR_STORM_WINDOW_SECONDS: variable(positiveSeconds('STREAMDOCTOR_STORM_WINDOW_SECONDS'), `\`${DEFAULTS.stormWindowSeconds}\``),
  STREAMDOCTOR_STORM_THRESHOLD: variable(
    z.string().transform((value, ctx) => {
      const n = wholeNumber(value);
      const name = 'STREAMDOCTOR_STORM_THRESHOLD';
      // 1 would group every alert.
      return n >= 2
        ? n
        : refuse(
            ctx,
            `${name} must be a whole number of at least 2 (how many openings in one channel within the storm window form one grouped message), e.g. ${name}=2; got "${value.slice(0, 40)}"`,
          );
    }),
    `\`${DEFAULTS.stormThreshold}\``,
  ),
  STREAMDOCTOR_SOURCE_FAILING_SECONDS: variable(positiveSeconds('STREAMDOCTOR_SOURCE_FAILING_SECONDS'), `\`${DEFAULTS.sourceFailingSeconds}\``),
  SLACK_REQUEST_URL: variable(text(), `\`${DEFAULTS.slackRequestUrl}\``),
  /** Read where a process ends on an unexpected error (src/cli/fatal.ts): `1` prints the stack. */
  STREAMDOCTOR_DEBUG: variable(text(), 'unset'),
} satisfies Record<string, EnvVariable<unknown>>;

export type EnvVariableName = keyof typeof ENV_VARIABLES;
type ValueOf<N extends EnvVariableName> = (typeof ENV_VARIABLES)[N] extends EnvVariable<infer T> ? T : never;

/** The environment as one zod object: each variable blank-or-absent → undefined, else read by its schema. */
export const ENV_SCHEMA = z.object(
  Object.fromEntries(
    Object.entries(ENV_VARIABLES).map(([name, spec]) => [name, z.preprocess((raw) => (typeof raw === 'string' && raw.trim() !== '' ? raw.trim() : undefined), (spec.schema as z.ZodType<unknown, string>).optional())]),
  ) as unknown as { [N in EnvVariableName]: z.ZodType<ValueOf<N> | undefined> },
);

/** The trimmed text of a variable; null when unset or blank. */
function textOf(env: NodeJS.ProcessEnv, name: string): string | null {
  const trimmed = env[name]?.trim();
  return trimmed ? trimmed : null;
}

/** Reads one variable through its schema: the value, or (listing the problem) its lenient reading, else undefined. */
function readVariable<N extends EnvVariableName>(env: NodeJS.ProcessEnv, name: N, problems: string[]): ValueOf<N> | undefined {
  const raw = textOf(env, name);
  if (raw === null) return undefined;
  const spec = ENV_VARIABLES[name] as EnvVariable<ValueOf<N>>;
  const parsed = spec.schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  problems.push(...parsed.error.issues.map((issue) => issue.message));
  return spec.lenient?.(raw);
}

/** The Slack side of the environment, as far as running the bot needs it. */
export type SlackNeed = 'post' | 'app';

/**
 * What is missing for Slack, one sentence each: `post` needs the bot token (alerts are posted with
 * it); `app` also needs a way to receive Slack's requests (the signing secret, or the app token for
 * Socket Mode). Empty when Slack is configured for the need. The one Slack credential check: the
 * environment (a bot token alone), each process's needs (compose.ts) and the start mode use it.
 */
export function slackProblems(slack: Pick<EnvConfig['slack'], 'botToken' | 'signingSecret' | 'appToken'>, need: SlackNeed): string[] {
  const problems: string[] = [];
  if (!slack.botToken) problems.push('set SLACK_BOT_TOKEN (xoxb-…): the bot posts alerts with it');
  if (need === 'app' && !slack.signingSecret && !slack.appToken) problems.push('set SLACK_SIGNING_SECRET (HTTP mode) or SLACK_APP_TOKEN (Socket Mode): Slack\'s requests reach the app with it');
  return problems;
}

export function readEnvConfig(env: NodeJS.ProcessEnv): EnvConfig {
  const problems: string[] = [];
  const read = <N extends EnvVariableName>(name: N) => readVariable(env, name, problems);

  const host = read('DATABRICKS_HOST') ?? null;
  const found = (name: string, value: string | undefined) => (value === undefined ? undefined : { value, from: name, fromProfile: false });
  const token = found('DATABRICKS_TOKEN', read('DATABRICKS_TOKEN'));
  const clientId = found('DATABRICKS_CLIENT_ID', read('DATABRICKS_CLIENT_ID'));
  const clientSecret = found('DATABRICKS_CLIENT_SECRET', read('DATABRICKS_CLIENT_SECRET'));
  const authType = found('DATABRICKS_AUTH_TYPE', read('DATABRICKS_AUTH_TYPE'));
  const bothKinds = token !== undefined && (clientId !== undefined || clientSecret !== undefined);
  // Two kinds of credentials at once are refused (as Databricks' SDKs do) unless DATABRICKS_AUTH_TYPE
  // picks one. Otherwise the auth type is applied per workspace, where a profile may hold the credentials.
  const chosen = chooseDatabricksCredentials(
    { token, clientId, clientSecret, authType: bothKinds ? authType : undefined },
    (key) => ({ token: 'DATABRICKS_TOKEN', client_id: 'DATABRICKS_CLIENT_ID', client_secret: 'DATABRICKS_CLIENT_SECRET' })[key],
  );
  const auth: DatabricksEnvAuth | null = chosen.credentials
    ? chosen.credentials.kind === 'pat'
      ? { kind: 'pat', token: chosen.credentials.token }
      : { kind: 'oauth-m2m', clientId: chosen.credentials.clientId, clientSecret: chosen.credentials.clientSecret }
    : null;
  if (chosen.problem) problems.push(chosen.problem);
  if (auth && !host) problems.push('Databricks credentials are set but DATABRICKS_HOST is not; set DATABRICKS_HOST=https://<your-workspace-host>');

  const port = read('PORT') ?? DEFAULTS.port;
  const logLevel = read('LOG_LEVEL') ?? DEFAULTS.logLevel;
  const prefix = read('STREAMDOCTOR_PREFIX') ?? DEFAULTS.prefix;
  const redisUrl = read('REDIS_URL') ?? null;
  const botToken = read('SLACK_BOT_TOKEN') ?? null;
  const appToken = read('SLACK_APP_TOKEN') ?? null;
  const signingSecret = read('SLACK_SIGNING_SECRET') ?? null;
  // Half a Slack setup (a bot token alone) is a problem in every process; which ones need Slack at all is compose.ts's.
  if (botToken) problems.push(...slackProblems({ botToken, signingSecret, appToken }, 'app'));
  const admins = read('STREAMDOCTOR_ADMINS') ?? { users: [], userGroups: [] };
  const apiUrl = read('SLACK_API_URL') ?? null;
  const warehouseId = read('DATABRICKS_WAREHOUSE_ID') ?? null;
  const configPath = read('STREAMDOCTOR_CONFIG') ?? null;

  const pollSeconds = read('STREAMDOCTOR_POLL_SECONDS');
  const pipeline: PipelineSettings = {
    pollEveryMs: Math.round((pollSeconds ?? DEFAULTS.pollSeconds) * 1000),
    digestAt: read('STREAMDOCTOR_DIGEST_AT') ?? DEFAULTS.digestAt,
    timeZone: read('STREAMDOCTOR_TIME_ZONE') ?? DEFAULTS.timeZone,
    defaultChannel: read('STREAMDOCTOR_DEFAULT_CHANNEL') ?? null,
    workerQueues: read('STREAMDOCTOR_WORKER_QUEUES') ?? null,
    stormWindowMs: Math.round((read('STREAMDOCTOR_STORM_WINDOW_SECONDS') ?? DEFAULTS.stormWindowSeconds) * 1000),
    stormThreshold: read('STREAMDOCTOR_STORM_THRESHOLD') ?? DEFAULTS.stormThreshold,
    sourceFailingAfterMs: Math.round((read('STREAMDOCTOR_SOURCE_FAILING_SECONDS') ?? DEFAULTS.sourceFailingSeconds) * 1000),
  };

  return {
    databricks: { host, auth, warehouseId },
    slack: { botToken, signingSecret, appToken, apiUrl },
    redisUrl,
    configPath,
    prefix,
    port,
    portSet: textOf(env, 'PORT') !== null,
    logLevel,
    admins,
    pipeline,
    pollSecondsSet: pollSeconds !== undefined,
    demo: !auth && !botToken,
    problems,
  };
}

/** The config with every secret replaced by `[set]`, for log lines and `/healthz`. */
export function describeEnvConfig(config: EnvConfig): Record<string, unknown> {
  const mask = (secret: string | null) => (secret ? '[set]' : null);
  return {
    databricks: {
      host: config.databricks.host,
      auth: config.databricks.auth ? (config.databricks.auth.kind === 'pat' ? 'pat' : `oauth-m2m (client ${config.databricks.auth.clientId})`) : null,
      warehouseId: config.databricks.warehouseId,
    },
    slack: {
      botToken: mask(config.slack.botToken),
      signingSecret: mask(config.slack.signingSecret),
      appToken: mask(config.slack.appToken),
      apiUrl: config.slack.apiUrl,
    },
    redisUrl: config.redisUrl ? redactRedisUrl(config.redisUrl) : null,
    configPath: config.configPath,
    prefix: config.prefix,
    port: config.port,
    logLevel: config.logLevel,
    admins: config.admins,
    pipeline: config.pipeline,
    demo: config.demo,
  };
}
