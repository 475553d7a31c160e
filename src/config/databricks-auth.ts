/**
 * Databricks unified authentication, as a pure function of the environment and the text of the
 * configuration profiles file: which host and credentials (PAT or OAuth M2M) a workspace uses.
 *
 * Rules (as Databricks' SDKs apply them):
 * - A profile is named by the watch file's `auth.profile`, else `DATABRICKS_CONFIG_PROFILE`; a named
 *   profile must exist. Unnamed, `[DEFAULT]` is read only when no credential variable is set.
 * - Each setting comes from its environment variable when set, else from the profile.
 * - `DATABRICKS_AUTH_TYPE` (else the profile's `auth_type`) picks `pat` or `oauth-m2m`; without it a
 *   token together with OAuth client credentials is refused, naming what to remove.
 * Problems name variables, keys and lines, never values.
 */
import type { DatabricksCredentials } from '../databricks/databricks-client.js';
import { parseDatabricksConfigFile, type DatabricksConfigProfile } from './databricks-config-file.js';

/** The profiles file as read at the composition edge; null when there is none. */
export interface DatabricksConfigFileText {
  path: string;
  text: string;
}

export const DATABRICKS_AUTH_TYPES = ['pat', 'oauth-m2m'] as const;

export interface ResolvedDatabricksAuth {
  /** Origin from `DATABRICKS_HOST` or the profile's `host`; null when neither says. */
  host: string | null;
  /** Where `host` came from (a variable name or `host in [prod]`), for messages. */
  hostFrom: string | null;
  credentials: DatabricksCredentials;
  /** The profile whose values were used, if any. */
  profile: string | null;
  /** True when at least one credential came from the profile. */
  credentialsFromProfile: boolean;
  /** The profile's own `host` (origin) and where it is written, whatever `DATABRICKS_HOST` says. */
  profileHost: { origin: string | null; from: string } | null;
}

export type DatabricksAuthResult = { ok: true; auth: ResolvedDatabricksAuth } | { ok: false; code: 'streamdoctor_databricks_auth'; problems: string[] };

/** One setting and where it came from: a variable name, or `key in [profile] (file:line)`. */
export interface Found {
  value: string;
  from: string;
  fromProfile: boolean;
}

export interface AuthAttributes {
  token?: Found | undefined;
  clientId?: Found | undefined;
  clientSecret?: Found | undefined;
  authType?: Found | undefined;
}

function value(env: NodeJS.ProcessEnv, name: string): string | null {
  const raw = env[name]?.trim();
  return raw ? raw : null;
}

/**
 * Picks PAT or OAuth M2M from the settings found. `missing` says how to supply an absent setting
 * (e.g. "DATABRICKS_CLIENT_SECRET"). Nothing set gives `{ credentials: null, problem: null }`.
 */
export function chooseDatabricksCredentials(
  attributes: AuthAttributes,
  missing: (setting: 'token' | 'client_id' | 'client_secret') => string,
): { credentials: DatabricksCredentials | null; problem: string | null } {
  const { token, clientId, clientSecret, authType } = attributes;
  const oauthParts = [clientId, clientSecret].filter((part): part is Found => part !== undefined);
  const fail = (problem: string) => ({ credentials: null, problem });
  if (authType) {
    const kind = authType.value.toLowerCase();
    if (kind === 'pat') {
      return token ? { credentials: { kind: 'pat', token: token.value }, problem: null } : fail(`${authType.from} is pat but no token is set; set ${missing('token')}`);
    }
    if (kind === 'oauth-m2m') {
      if (clientId && clientSecret) return { credentials: { kind: 'oauth-m2m', clientId: clientId.value, clientSecret: clientSecret.value }, problem: null };
      const absent = [!clientId && missing('client_id'), !clientSecret && missing('client_secret')].filter(Boolean);
      return fail(`${authType.from} is oauth-m2m but ${absent.join(' and ')} ${absent.length > 1 ? 'are' : 'is'} not set; set ${absent.length > 1 ? 'both' : 'it'}`);
    }
    return fail(`${authType.from} is "${authType.value.slice(0, 40)}"; StreamDoctor supports ${DATABRICKS_AUTH_TYPES.join(' and ')}: set one of them or remove it`);
  }
  if (token && oauthParts.length > 0) {
    const oauth = oauthParts.map((part) => part.from).join(' and ');
    return fail(
      `both a token (${token.from}) and OAuth credentials (${oauth}) are set; remove ${token.from}, or remove ${oauth}, or set DATABRICKS_AUTH_TYPE=pat or DATABRICKS_AUTH_TYPE=oauth-m2m to pick one`,
    );
  }
  if (token) return { credentials: { kind: 'pat', token: token.value }, problem: null };
  if (clientId && clientSecret) return { credentials: { kind: 'oauth-m2m', clientId: clientId.value, clientSecret: clientSecret.value }, problem: null };
  if (clientId) return fail(`${clientId.from} is set without ${missing('client_secret')}; set both for OAuth M2M (or unset it and use ${missing('token')})`);
  if (clientSecret) return fail(`${clientSecret.from} is set without ${missing('client_id')}; set both for OAuth M2M (or unset it and use ${missing('token')})`);
  return { credentials: null, problem: null };
}

function originOf(host: string): string | null {
  try {
    return new URL(/^[a-z]+:\/\//i.test(host) ? host : `https://${host}`).origin;
  } catch {
    return null;
  }
}

/**
 * Host and credentials for one workspace. `file` is the profiles file (null when absent);
 * `profileFromWatchFile` is the workspace's `auth.profile`, which wins over `DATABRICKS_CONFIG_PROFILE`.
 */
export function resolveDatabricksAuth(env: NodeJS.ProcessEnv, file: DatabricksConfigFileText | null, profileFromWatchFile?: string | null): DatabricksAuthResult {
  const fail = (...problems: string[]): DatabricksAuthResult => ({ ok: false, code: 'streamdoctor_databricks_auth', problems });
  const envProfile = value(env, 'DATABRICKS_CONFIG_PROFILE');
  const fromEnv = {
    host: value(env, 'DATABRICKS_HOST'),
    token: value(env, 'DATABRICKS_TOKEN'),
    client_id: value(env, 'DATABRICKS_CLIENT_ID'),
    client_secret: value(env, 'DATABRICKS_CLIENT_SECRET'),
    auth_type: value(env, 'DATABRICKS_AUTH_TYPE'),
  };
  const ENV_NAMES = { host: 'DATABRICKS_HOST', token: 'DATABRICKS_TOKEN', client_id: 'DATABRICKS_CLIENT_ID', client_secret: 'DATABRICKS_CLIENT_SECRET', auth_type: 'DATABRICKS_AUTH_TYPE' } as const;
  const profileName = profileFromWatchFile ?? envProfile ?? 'DEFAULT';
  const namedBy = profileFromWatchFile ? `auth.profile in the watch file` : envProfile ? 'DATABRICKS_CONFIG_PROFILE' : null;

  let profile: DatabricksConfigProfile | null = null;
  if (file) {
    const parsed = parseDatabricksConfigFile(file.text, file.path);
    if (!parsed.ok) return fail(...parsed.errors);
    profile = parsed.profiles.get(profileName) ?? null;
    if (!profile && namedBy) {
      const names = [...parsed.profiles.keys()];
      const sameBut = names.find((name) => name.toLowerCase() === profileName.toLowerCase());
      return fail(
        `profile [${profileName}] (named by ${namedBy}) is not in ${file.path}; ${sameBut ? `did you mean [${sameBut}]? ` : ''}${names.length ? `profiles there: ${names.map((name) => `[${name}]`).join(', ')}` : 'it has no profiles'}`,
      );
    }
    // Databricks skips the unnamed [DEFAULT] when credentials are already set in the environment.
    if (!namedBy && (fromEnv.token || fromEnv.client_id || fromEnv.client_secret)) profile = null;
  } else if (namedBy) {
    return fail(`profile [${profileName}] (named by ${namedBy}) needs a Databricks config file, but none was found; create ~/.databrickscfg or set DATABRICKS_CONFIG_FILE to its path`);
  }

  const pick = (key: keyof typeof fromEnv): Found | undefined => {
    const fromVariable = fromEnv[key];
    if (fromVariable) return { value: fromVariable, from: ENV_NAMES[key], fromProfile: false };
    const entry = profile?.values[key];
    if (entry && entry.value !== '') return { value: entry.value, from: `${key} in [${profile!.name}] (${file!.path}:${entry.line})`, fromProfile: true };
    return undefined;
  };
  const missing = (key: 'token' | 'client_id' | 'client_secret') => (profile ? `${ENV_NAMES[key]} (or ${key} in [${profile.name}])` : ENV_NAMES[key]);
  const attributes = { token: pick('token'), clientId: pick('client_id'), clientSecret: pick('client_secret'), authType: pick('auth_type') };
  const chosen = chooseDatabricksCredentials(attributes, missing);
  if (chosen.problem) return fail(chosen.problem);
  if (!chosen.credentials) {
    return fail(
      profile
        ? `no Databricks credentials in [${profile.name}] (${file!.path}) nor the environment; add token = … (or client_id and client_secret) to the profile, or set DATABRICKS_TOKEN`
        : 'no Databricks credentials; set DATABRICKS_TOKEN (or DATABRICKS_CLIENT_ID and DATABRICKS_CLIENT_SECRET), or name a profile of ~/.databrickscfg with DATABRICKS_CONFIG_PROFILE',
    );
  }
  const host = pick('host');
  const origin = host ? originOf(host.value) : null;
  if (host && !origin) return fail(`${host.from} is not a URL; write it like https://adb-1234567890123456.7.azuredatabricks.net`);
  const profileHostEntry = profile?.values.host;
  const profileHost = profileHostEntry && profileHostEntry.value !== '' ? { origin: originOf(profileHostEntry.value), from: `host in [${profile!.name}] (${file!.path}:${profileHostEntry.line})` } : null;
  const used = chosen.credentials.kind === 'pat' ? [attributes.token] : [attributes.clientId, attributes.clientSecret];
  return {
    ok: true,
    auth: {
      host: origin,
      hostFrom: host?.from ?? null,
      credentials: chosen.credentials,
      profile: profile?.name ?? null,
      credentialsFromProfile: used.some((found) => found?.fromProfile),
      profileHost,
    },
  };
}
