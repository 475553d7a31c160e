/**
 * Every environment variable StreamDoctor reads, as a pure function of `env`. Nothing here throws:
 * problems (a malformed URL, half of an OAuth pair) are listed in `problems`, each saying what to set.
 * Secrets are kept on the returned object but `describeEnvConfig` masks them for logs.
 */
import { chooseDatabricksCredentials, DATABRICKS_AUTH_TYPES } from './databricks-auth.js';

export type DatabricksEnvAuth =
  | { kind: 'pat'; token: string }
  | { kind: 'oauth-m2m'; clientId: string; clientSecret: string };

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
  /** `LOG_LEVEL`. @defaultValue 'info' */
  logLevel: string;
  /**
   * `STREAMDOCTOR_ADMINS`: Slack user ids (`U…`/`W…`) and user group ids (`S…`), comma- or
   * space-separated, who alone may mute, unmute, watch and unwatch. @defaultValue none (anyone may)
   */
  admins: { users: string[]; userGroups: string[] };
  /** True when neither Databricks nor Slack credentials are set: `start` runs the demo. */
  demo: boolean;
  /** Each problem found, with what to set instead. Empty when the environment is usable. */
  problems: string[];
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function value(env: NodeJS.ProcessEnv, name: string): string | null {
  const raw = env[name];
  if (raw === undefined) return null;
  const trimmed = raw.trim();
  return trimmed === '' ? null : trimmed;
}

function url(text: string | null, name: string, problems: string[], addScheme: boolean): string | null {
  if (text === null) return null;
  const candidate = addScheme && !/^[a-z]+:\/\//i.test(text) ? `https://${text}` : text;
  try {
    const parsed = new URL(candidate);
    if (addScheme) return parsed.origin;
    return candidate;
  } catch {
    problems.push(`${name} is not a URL ("${text.slice(0, 80)}"); set it like ${addScheme ? 'https://adb-1234567890123456.7.azuredatabricks.net' : 'http://127.0.0.1:3001/api/'}`);
    return null;
  }
}

export function readEnvConfig(env: NodeJS.ProcessEnv): EnvConfig {
  const problems: string[] = [];
  const host = url(value(env, 'DATABRICKS_HOST'), 'DATABRICKS_HOST', problems, true);
  const found = (name: string, text: string | null) => (text === null ? undefined : { value: text, from: name, fromProfile: false });
  const token = found('DATABRICKS_TOKEN', value(env, 'DATABRICKS_TOKEN'));
  const clientId = found('DATABRICKS_CLIENT_ID', value(env, 'DATABRICKS_CLIENT_ID'));
  const clientSecret = found('DATABRICKS_CLIENT_SECRET', value(env, 'DATABRICKS_CLIENT_SECRET'));
  const authType = found('DATABRICKS_AUTH_TYPE', value(env, 'DATABRICKS_AUTH_TYPE'));
  const bothKinds = token !== undefined && (clientId !== undefined || clientSecret !== undefined);
  if (authType && !(DATABRICKS_AUTH_TYPES as readonly string[]).includes(authType.value.toLowerCase())) {
    problems.push(`DATABRICKS_AUTH_TYPE is "${authType.value.slice(0, 40)}"; StreamDoctor supports ${DATABRICKS_AUTH_TYPES.join(' and ')}: set one of them or remove it`);
  }
  // Two kinds of credentials at once are refused (as Databricks' SDKs do) unless DATABRICKS_AUTH_TYPE
  // picks one. Otherwise the auth type is applied per workspace, where a profile may hold the credentials.
  const chosen = chooseDatabricksCredentials(
    { token, clientId, clientSecret, authType: bothKinds && authType && (DATABRICKS_AUTH_TYPES as readonly string[]).includes(authType.value.toLowerCase()) ? authType : undefined },
    (key) => ({ token: 'DATABRICKS_TOKEN', client_id: 'DATABRICKS_CLIENT_ID', client_secret: 'DATABRICKS_CLIENT_SECRET' })[key],
  );
  const auth: DatabricksEnvAuth | null = chosen.credentials
    ? chosen.credentials.kind === 'pat'
      ? { kind: 'pat', token: chosen.credentials.token }
      : { kind: 'oauth-m2m', clientId: chosen.credentials.clientId, clientSecret: chosen.credentials.clientSecret }
    : null;
  if (chosen.problem) problems.push(chosen.problem);
  if (auth && !host) {
    problems.push('Databricks credentials are set but DATABRICKS_HOST is not; set DATABRICKS_HOST=https://<your-workspace-host>');
  }

  const portText = value(env, 'PORT');
  let port = 3000;
  if (portText !== null) {
    const parsed = Number(portText);
    if (Number.isInteger(parsed) && parsed >= 0 && parsed <= 65535) port = parsed;
    else problems.push(`PORT must be an integer from 0 to 65535; got "${portText}"`);
  }
  let logLevel = value(env, 'LOG_LEVEL')?.toLowerCase() ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got "${logLevel}"`);
    logLevel = 'info';
  }
  const prefix = value(env, 'STREAMDOCTOR_PREFIX') ?? 'sd';
  if (!/^[A-Za-z0-9:_-]{1,40}$/.test(prefix)) {
    problems.push(`STREAMDOCTOR_PREFIX may hold letters, digits, ':', '_' and '-' (up to 40); got "${prefix.slice(0, 60)}"`);
  }
  const redisUrl = value(env, 'REDIS_URL');
  if (redisUrl !== null && !/^rediss?:\/\//.test(redisUrl)) problems.push('REDIS_URL must start with redis:// or rediss://');

  const botToken = value(env, 'SLACK_BOT_TOKEN');
  if (botToken && !botToken.startsWith('xoxb-')) problems.push('SLACK_BOT_TOKEN should be a bot token starting with xoxb-');
  const appToken = value(env, 'SLACK_APP_TOKEN');
  if (appToken && !appToken.startsWith('xapp-')) problems.push('SLACK_APP_TOKEN should be an app-level token starting with xapp-');
  const signingSecret = value(env, 'SLACK_SIGNING_SECRET');
  if (botToken && !signingSecret && !appToken) {
    problems.push('SLACK_BOT_TOKEN is set without SLACK_SIGNING_SECRET (HTTP mode) or SLACK_APP_TOKEN (Socket Mode); set one of them');
  }

  const admins = readAdmins(value(env, 'STREAMDOCTOR_ADMINS'), problems);

  return {
    databricks: { host, auth, warehouseId: value(env, 'DATABRICKS_WAREHOUSE_ID') },
    slack: { botToken, signingSecret, appToken, apiUrl: url(value(env, 'SLACK_API_URL'), 'SLACK_API_URL', problems, false) },
    redisUrl,
    configPath: value(env, 'STREAMDOCTOR_CONFIG'),
    prefix,
    port,
    logLevel,
    admins,
    demo: !auth && !botToken,
    problems,
  };
}

function readAdmins(text: string | null, problems: string[]): EnvConfig['admins'] {
  const admins: EnvConfig['admins'] = { users: [], userGroups: [] };
  const wrong: string[] = [];
  for (const id of (text ?? '').split(/[\s,]+/).filter(Boolean)) {
    if (/^[UW][A-Z0-9]{2,}$/.test(id)) admins.users.push(id);
    else if (/^S[A-Z0-9]{2,}$/.test(id)) admins.userGroups.push(id);
    else wrong.push(id);
  }
  // A mistyped entry would silently leave someone out (or, alone, open the commands to everyone).
  if (wrong.length > 0) {
    problems.push(
      `STREAMDOCTOR_ADMINS holds ${wrong.map((id) => `"${id.slice(0, 40)}"`).join(', ')}, which ${wrong.length === 1 ? 'is' : 'are'} not a Slack user id (U…/W…) or user group id (S…); list ids like U024BE7LH,S0614TZR7 (a profile's "Copy member ID")`,
    );
  }
  return admins;
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
    redisUrl: config.redisUrl ? config.redisUrl.replace(/\/\/[^@/]*@/, '//[credentials]@') : null,
    configPath: config.configPath,
    prefix: config.prefix,
    port: config.port,
    logLevel: config.logLevel,
    admins: config.admins,
    demo: config.demo,
  };
}
