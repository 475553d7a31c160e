/**
 * The watch file's schema (zod). Keys are snake_case as people write YAML; every object is strict,
 * so a misspelled key is a mistake, not silently ignored. Secrets never appear here: auth names the
 * environment variables that hold them.
 */
import { z } from 'zod';
import { TUNING } from '../diagnosis/engine-options.js';
import { parseDuration } from '../util/duration.js';
import { DEFAULTS } from './defaults.js';

const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;
const CHANNEL = /^(#[a-z0-9][a-z0-9._-]{0,79}|[CGD][A-Z0-9]{8,})$/;

/** A duration of at least 1 ms (`0` or `0.0001` would be a schedule of 0 ms, which BullMQ refuses); at most ten years. */
export const duration = z.union([z.string(), z.number()]).transform((input, ctx) => {
  try {
    const ms = parseDuration(String(input));
    if (ms >= 1) return ms;
    ctx.addIssue({ code: 'custom', message: `"${String(input).slice(0, 40)}" is no time at all; write a duration of 1ms or more, like 500ms, 90s, 10m, 2h or 7d` });
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
  }
  return z.NEVER;
});

/** Longest poll interval: a week, as for STREAMDOCTOR_POLL_SECONDS (src/config/env.ts). */
const MAX_POLL_MS = 7 * 86_400_000;
const pollInterval = duration.refine((ms) => ms <= MAX_POLL_MS, { error: 'must be at most 7d (a week); write it like 60s or 5m' });

const envName = z
  .string()
  .regex(ENV_NAME, { error: 'must name an environment variable (capitals, digits, _), e.g. DATABRICKS_TOKEN — not the secret itself' });

export const channel = z.string().regex(CHANNEL, {
  error: 'must be a Slack channel written like "#streaming-alerts" (lower case, quoted in YAML) or a channel id like C0123456789',
});

export const AUTH_KEYS = ['token_env', 'client_id_env', 'client_secret_env', 'profile'] as const;
const profileName = z.string().regex(/^[A-Za-z0-9_.@-]{1,100}$/, { error: 'must be the name of a profile in ~/.databrickscfg (the text in its [brackets]), e.g. profile: prod' });
const auth = z
  .strictObject({ token_env: envName.optional(), client_id_env: envName.optional(), client_secret_env: envName.optional(), profile: profileName.optional() })
  .superRefine((value, ctx) => {
    const oauth = value.client_id_env !== undefined || value.client_secret_env !== undefined;
    if (value.profile !== undefined && (oauth || value.token_env !== undefined)) {
      ctx.addIssue({ code: 'custom', message: 'write either profile (a ~/.databrickscfg profile) or token_env / client_id_env + client_secret_env, not both' });
      return;
    }
    if (oauth && (value.client_id_env === undefined || value.client_secret_env === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'OAuth needs both client_id_env and client_secret_env, e.g. client_id_env: DATABRICKS_CLIENT_ID and client_secret_env: DATABRICKS_CLIENT_SECRET' });
    }
    if (oauth && value.token_env !== undefined) {
      ctx.addIssue({ code: 'custom', message: 'write either token_env (a personal access token) or client_id_env + client_secret_env (OAuth), not both' });
    }
    if (!oauth && value.token_env === undefined && value.profile === undefined) {
      ctx.addIssue({ code: 'custom', message: 'name where the credentials are: token_env: DATABRICKS_TOKEN, client_id_env/client_secret_env for a service principal, or profile: <name in ~/.databrickscfg>' });
    }
  });

export const JOB_KEYS = ['id', 'name', 'continuous', 'channel'] as const;
const job = z.strictObject({
  id: z.number().int().positive({ error: 'must be the numeric job id from the job URL, e.g. 19064954' }),
  name: z.string().optional(),
  continuous: z.boolean().optional(),
  channel: channel.optional(),
});

export const PIPELINE_KEYS = ['id', 'name', 'channel'] as const;
const pipeline = z.strictObject({
  id: z.string().regex(/^[0-9a-f-]{8,}$/i, { error: 'must be the pipeline id (a UUID), e.g. abcdef12-abcd-3456-7890-abcd1234ef56' }),
  name: z.string().optional(),
  channel: channel.optional(),
});

/** Splits a dotted name at the dots outside backquotes (parts as written); null when a backquote is left open. */
function splitTableName(text: string): string[] | null {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i]!;
    if (ch === '.' && !quoted) {
      parts.push(current);
      current = '';
      continue;
    }
    if (ch === '`' && quoted && text[i + 1] === '`') {
      current += '``';
      i += 1;
      continue;
    }
    if (ch === '`') quoted = !quoted;
    current += ch;
  }
  if (quoted) return null;
  parts.push(current);
  return parts;
}

const UNQUOTED_PART = /^[A-Za-z0-9_]+$/;
const QUOTED_PART = /^`(?:[^`]|``)+`$/;

/**
 * `catalog.schema.table` as Databricks SQL reads it (the bot passes it to `IDENTIFIER(:table)`): each
 * part letters, digits and `_`, or back-quoted with a doubled backquote inside for one. Databricks
 * refuses an unquoted `dev-catalog` (INVALID_IDENTIFIER), so the file does too, and says how to write it.
 */
const progressTable = z.string().superRefine((text, ctx) => {
  const parts = splitTableName(text);
  if (!parts || parts.length !== 3 || parts.includes('')) {
    ctx.addIssue({
      code: 'custom',
      message: 'must be a three-part name catalog.schema.table, e.g. main.streamdoctor.streaming_progress (a part with other characters than letters, digits and _ back-quoted, the value in double quotes: "`dev-catalog`.streamdoctor.streaming_progress")',
    });
    return;
  }
  const bad = parts.filter((part) => !UNQUOTED_PART.test(part) && !QUOTED_PART.test(part));
  if (bad.length === 0) return;
  const fixed = parts.map((part) => (bad.includes(part) ? `\`${part.replaceAll('`', '``')}\`` : part)).join('.');
  ctx.addIssue({
    code: 'custom',
    message: `has ${bad.map((part) => `"${part}"`).join(' and ')} unquoted, and Databricks accepts only letters, digits and _ there; back-quote that part and put the whole value in double quotes (YAML cannot start a value with a backquote): progress_table: ${JSON.stringify(fixed)}`,
  });
});

export const WORKSPACE_KEYS = ['name', 'host', 'auth', 'warehouse_id', 'progress_table', 'jobs', 'pipelines'] as const;
const workspace = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/, { error: 'must be a short name (letters, digits, - and _), e.g. prod' }),
  host: z.string().refine((text) => /^https?:\/\/[^/\s]+\/?$/.test(text) || /^[a-z0-9.-]+\.[a-z]{2,}$/i.test(text), {
    error: 'must be the workspace URL, e.g. https://adb-1234567890123456.7.azuredatabricks.net',
  }),
  // Unset: Databricks unified auth (DATABRICKS_TOKEN / DATABRICKS_CLIENT_*, else a ~/.databrickscfg profile).
  auth: auth.optional(),
  warehouse_id: z
    .union([
      z.string().regex(/^[A-Za-z0-9]+$/, { error: 'must be the warehouse id from its connection details, e.g. 4b9b953939869799' }),
      // YAML reads an all-digit id as a number; beyond 2^53 its digits are already lost.
      z.number().refine(Number.isSafeInteger, { error: 'is too long to read as a number; quote it: warehouse_id: "<id>"' }),
    ])
    .transform(String)
    .optional(),
  progress_table: progressTable.optional(),
  jobs: z.array(job).default([]),
  pipelines: z.array(pipeline).default([]),
});

export const STREAM_KEYS = ['query_id', 'name', 'workspace', 'channel', 'job', 'trigger', 'cores', 'retention'] as const;
const stream = z
  .strictObject({
    // Spark writes query ids in lower case and every lookup (the SQL filter, routing) compares
    // exactly, so an id pasted in upper case is read as the same id.
    query_id: z
      .string()
      .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, { error: 'must be the query id (UUID) from the progress "id" field' })
      .transform((id) => id.toLowerCase())
      .optional(),
    name: z.string().min(1).optional(),
    workspace: z.string().optional(),
    channel: channel.optional(),
    job: z.number().int().positive().optional(),
    trigger: duration.optional(),
    cores: z.number().int().positive().optional(),
    retention: duration.optional(),
  })
  .refine((value) => value.query_id !== undefined || value.name !== undefined, {
    error: 'a stream needs query_id: <uuid> or name: <queryName>',
  });

export const DIGEST_KEYS = ['time', 'time_zone'] as const;
const digest = z.strictObject({
  time: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, { error: 'must be a 24-hour time in quotes, e.g. "09:00"' }),
  time_zone: z.string().refine(
    (zone) => {
      try {
        new Intl.DateTimeFormat('en-US', { timeZone: zone });
        return true;
      } catch {
        return false;
      }
    },
    { error: 'must be an IANA time zone, e.g. Europe/Berlin, America/New_York or UTC' },
  ),
  // Read only to refuse it with a reason: an unknown-key error would not say why.
  channel: z
    .unknown()
    .optional()
    .refine((value) => value === undefined, {
      error: 'there is no digest channel: each channel gets the digest of the streams routed to it; write digest: { time, time_zone } only',
    }),
});

/**
 * Thresholds the engine does not take as options. They were once accepted and reached nothing; a
 * key that silently does nothing is worse than a clear refusal, so each names what decides instead.
 */
const minutes = (ms: number) => `${Math.round(ms / 60_000)} minutes`;
export const UNSUPPORTED_THRESHOLDS: Record<string, string> = {
  stalled_after: `is not supported: a stall is judged from each query's own cadence (no progress for ${TUNING.stallFactor} × its trigger interval, at least ${minutes(TUNING.stallMinMs)}, while data is waiting); remove this key`,
  time_behind_warning: `is not supported: lag is judged from the trend of time behind (growing over ${TUNING.lagWindow} batches, a backlog that takes over ${minutes(TUNING.catchUpBudgetSec * 1000)} to drain, or over ${minutes(TUNING.lagLevelSec * 1000)} behind); remove this key`,
  time_behind_critical: `is not supported: lag turns critical at ${minutes(TUNING.criticalTimeBehindSec * 1000)} behind; remove this key`,
};

const unsupported = (key: string) =>
  z.unknown().superRefine((_value, ctx) => {
    ctx.addIssue({ code: 'custom', message: UNSUPPORTED_THRESHOLDS[key]! });
  });

/** Keys a user may write under `thresholds` (the refused ones are not offered by "did you mean"). */
export const THRESHOLD_KEYS = ['repartition'] as const;
const thresholds = z.strictObject({
  repartition: duration.optional(),
  stalled_after: unsupported('stalled_after').optional(),
  time_behind_warning: unsupported('time_behind_warning').optional(),
  time_behind_critical: unsupported('time_behind_critical').optional(),
});

export const DEFAULTS_KEYS = ['channel'] as const;
export const ROOT_KEYS = ['workspaces', 'streams', 'defaults', 'poll_interval', 'digest', 'retention', 'thresholds'] as const;

export const watchFileSchema = z.strictObject({
  workspaces: z.array(workspace).min(1, { error: 'list at least one workspace (name, host, auth)' }),
  streams: z.array(stream).default([]),
  defaults: z.strictObject({ channel }),
  poll_interval: pollInterval.default(DEFAULTS.pollSeconds * 1000),
  digest: digest.optional(),
  retention: duration.default(7 * 86_400_000),
  thresholds: thresholds.default({}),
});

export type WatchFileInput = z.input<typeof watchFileSchema>;
export type WatchFileParsed = z.output<typeof watchFileSchema>;

/** Keys allowed in the object at `path` (for "did you mean"). */
export function knownKeysAt(path: (string | number)[]): readonly string[] {
  const names = path.filter((part) => typeof part === 'string');
  const last = names.at(-1);
  if (path.length === 0) return ROOT_KEYS;
  if (last === 'workspaces') return WORKSPACE_KEYS;
  if (last === 'auth') return AUTH_KEYS;
  if (last === 'jobs') return JOB_KEYS;
  if (last === 'pipelines') return PIPELINE_KEYS;
  if (last === 'streams') return STREAM_KEYS;
  if (last === 'digest') return DIGEST_KEYS;
  if (last === 'thresholds') return THRESHOLD_KEYS;
  if (last === 'defaults') return DEFAULTS_KEYS;
  return [];
}
