import { describe, expect, it } from 'vitest';
import { resolveDatabricksAuth, resolveWorkspaceCredentials, type DatabricksAuthResult, type WorkspaceWatch } from '../../src/config/index.js';

const PATH = '/home/ops/.databrickscfg';
const PROD = 'https://adb-1234567890123456.7.azuredatabricks.net';
const STAGING = 'https://dbc-a1b2c3d4-e5f6.cloud.databricks.com';
const FILE = `; profiles as "databricks configure" and "databricks auth login" write them
[DEFAULT]
host  = ${STAGING}
token = dapi-default-0123456789abcdef

[prod]
host          = ${PROD}
client_id     = sp-prod
client_secret = prod-oauth-secret

[both]
host          = ${PROD}
token         = dapi-both-0123456789abcdef
client_id     = sp-both
client_secret = both-oauth-secret

[both-picked]
host          = ${PROD}
token         = dapi-picked-0123456789abcdef
client_id     = sp-picked
client_secret = picked-oauth-secret
auth_type     = pat

[half]
host      = ${PROD}
client_id = sp-half
`;
const file = { path: PATH, text: FILE };

type Case = {
  name: string;
  env?: NodeJS.ProcessEnv;
  file?: { path: string; text: string } | null;
  profile?: string;
  ok?: { host: string | null; credentials: object; profile: string | null };
  problem?: string;
};

const cases: Case[] = [
  { name: 'env token alone, no file', env: { DATABRICKS_HOST: PROD, DATABRICKS_TOKEN: 'dapi-env' }, file: null, ok: { host: PROD, credentials: { kind: 'pat', token: 'dapi-env' }, profile: null } },
  { name: '[DEFAULT] when nothing is named or set', env: {}, ok: { host: STAGING, credentials: { kind: 'pat', token: 'dapi-default-0123456789abcdef' }, profile: 'DEFAULT' } },
  {
    name: 'DATABRICKS_CONFIG_PROFILE picks the section',
    env: { DATABRICKS_CONFIG_PROFILE: 'prod' },
    ok: { host: PROD, credentials: { kind: 'oauth-m2m', clientId: 'sp-prod', clientSecret: 'prod-oauth-secret' }, profile: 'prod' },
  },
  {
    name: 'the watch file profile wins over DATABRICKS_CONFIG_PROFILE',
    env: { DATABRICKS_CONFIG_PROFILE: 'DEFAULT' },
    profile: 'prod',
    ok: { host: PROD, credentials: { kind: 'oauth-m2m', clientId: 'sp-prod', clientSecret: 'prod-oauth-secret' }, profile: 'prod' },
  },
  {
    name: 'an env variable wins over the same key of the profile',
    env: { DATABRICKS_CLIENT_SECRET: 'rotated-secret', DATABRICKS_HOST: STAGING },
    profile: 'prod',
    ok: { host: STAGING, credentials: { kind: 'oauth-m2m', clientId: 'sp-prod', clientSecret: 'rotated-secret' }, profile: 'prod' },
  },
  { name: 'an unnamed [DEFAULT] is skipped when credentials are in the environment', env: { DATABRICKS_CLIENT_ID: 'sp-env', DATABRICKS_CLIENT_SECRET: 's' }, ok: { host: null, credentials: { kind: 'oauth-m2m', clientId: 'sp-env', clientSecret: 's' }, profile: null } },
  {
    name: 'a token in the env and OAuth in a named profile are refused, naming both',
    env: { DATABRICKS_TOKEN: 'dapi-env' },
    profile: 'prod',
    problem: `both a token (DATABRICKS_TOKEN) and OAuth credentials (client_id in [prod] (${PATH}:8) and client_secret in [prod] (${PATH}:9)) are set; remove DATABRICKS_TOKEN, or remove client_id in [prod] (${PATH}:8) and client_secret in [prod] (${PATH}:9), or set DATABRICKS_AUTH_TYPE=pat or DATABRICKS_AUTH_TYPE=oauth-m2m to pick one`,
  },
  {
    name: 'both kinds in one profile are refused with its keys and lines',
    profile: 'both',
    problem: `both a token (token in [both] (${PATH}:13)) and OAuth credentials (client_id in [both] (${PATH}:14) and client_secret in [both] (${PATH}:15)) are set`,
  },
  { name: 'DATABRICKS_AUTH_TYPE picks OAuth when both are set', env: { DATABRICKS_AUTH_TYPE: 'oauth-m2m' }, profile: 'both', ok: { host: PROD, credentials: { kind: 'oauth-m2m', clientId: 'sp-both', clientSecret: 'both-oauth-secret' }, profile: 'both' } },
  { name: 'DATABRICKS_AUTH_TYPE picks the token when both are set', env: { DATABRICKS_AUTH_TYPE: 'PAT' }, profile: 'both', ok: { host: PROD, credentials: { kind: 'pat', token: 'dapi-both-0123456789abcdef' }, profile: 'both' } },
  { name: 'the profile auth_type picks', profile: 'both-picked', ok: { host: PROD, credentials: { kind: 'pat', token: 'dapi-picked-0123456789abcdef' }, profile: 'both-picked' } },
  { name: 'DATABRICKS_AUTH_TYPE wins over the profile auth_type', env: { DATABRICKS_AUTH_TYPE: 'oauth-m2m' }, profile: 'both-picked', ok: { host: PROD, credentials: { kind: 'oauth-m2m', clientId: 'sp-picked', clientSecret: 'picked-oauth-secret' }, profile: 'both-picked' } },
  { name: 'an auth type StreamDoctor does not speak', env: { DATABRICKS_AUTH_TYPE: 'databricks-cli' }, profile: 'prod', problem: 'DATABRICKS_AUTH_TYPE is "databricks-cli"; StreamDoctor supports pat and oauth-m2m: set one of them or remove it' },
  { name: 'auth type pat without a token', env: { DATABRICKS_AUTH_TYPE: 'pat' }, profile: 'prod', problem: 'DATABRICKS_AUTH_TYPE is pat but no token is set; set DATABRICKS_TOKEN (or token in [prod])' },
  { name: 'half an OAuth pair in a profile', profile: 'half', problem: `client_id in [half] (${PATH}:26) is set without DATABRICKS_CLIENT_SECRET (or client_secret in [half]); set both for OAuth M2M` },
  { name: 'a named profile that does not exist lists those that do', profile: 'production', problem: `profile [production] (named by auth.profile in the watch file) is not in ${PATH}; profiles there: [DEFAULT], [prod], [both], [both-picked], [half]` },
  { name: 'a profile named in another case', env: { DATABRICKS_CONFIG_PROFILE: 'PROD' }, problem: `profile [PROD] (named by DATABRICKS_CONFIG_PROFILE) is not in ${PATH}; did you mean [prod]? profiles there:` },
  { name: 'a named profile without a file', profile: 'prod', file: null, problem: 'profile [prod] (named by auth.profile in the watch file) needs a Databricks config file, but none was found; create ~/.databrickscfg or set DATABRICKS_CONFIG_FILE to its path' },
  { name: 'nothing anywhere', env: {}, file: null, problem: 'no Databricks credentials; set DATABRICKS_TOKEN' },
  { name: 'a malformed file', file: { path: PATH, text: '[prod]\nhost https://x' }, problem: `${PATH}:2: expected "key = value"` },
];

describe('resolveDatabricksAuth', () => {
  it.each(cases)('$name', ({ env = {}, file: given, profile, ok, problem }) => {
    const result: DatabricksAuthResult = resolveDatabricksAuth(env, given === undefined ? file : given, profile);
    if (ok) {
      if (!result.ok) throw new Error(result.problems.join('\n'));
      expect({ host: result.auth.host, credentials: result.auth.credentials, profile: result.auth.profile }).toEqual(ok);
    } else {
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.code).toBe('streamdoctor_databricks_auth');
        expect(result.problems).toHaveLength(1);
        expect(result.problems[0]).toContain(problem);
        // Problems name variables, keys and lines, never the secrets themselves.
        expect(result.problems[0]).not.toMatch(/dapi-|oauth-secret|rotated-secret/);
      }
    }
  });
});

describe('resolveWorkspaceCredentials with a profile', () => {
  const workspace = (host: string, profile: string | null): WorkspaceWatch => ({
    name: 'prod',
    host,
    auth: { kind: 'databricks-config', profile },
    warehouseId: null,
    progressTable: null,
    jobs: [],
    pipelines: [],
  });

  it('uses the profile when its host is the workspace host', () => {
    expect(resolveWorkspaceCredentials(workspace(PROD, 'prod'), {}, file)).toEqual({ ok: true, credentials: { kind: 'oauth-m2m', clientId: 'sp-prod', clientSecret: 'prod-oauth-secret' } });
  });

  it('never sends a profile’s credentials to another workspace', () => {
    const result = resolveWorkspaceCredentials(workspace(PROD, null), {}, file);
    expect(result).toEqual({ ok: false, error: `workspace "prod": host in [DEFAULT] (${PATH}:3) is ${STAGING} but the watch file says host: ${PROD}; make them the same workspace or name the profile for ${PROD}` });
  });

  it('prefixes resolver problems with the workspace', () => {
    expect(resolveWorkspaceCredentials(workspace(PROD, 'nope'), {}, file)).toEqual({ ok: false, error: expect.stringMatching(/^workspace "prod": profile \[nope\]/) });
  });
});

describe('the host check uses the profile’s own host', () => {
  it('is not fooled by DATABRICKS_HOST pointing elsewhere', () => {
    const workspace: WorkspaceWatch = { name: 'prod', host: PROD, auth: { kind: 'databricks-config', profile: 'prod' }, warehouseId: null, progressTable: null, jobs: [], pipelines: [] };
    expect(resolveWorkspaceCredentials(workspace, { DATABRICKS_HOST: STAGING }, file)).toMatchObject({ ok: true });
    const staging = { ...workspace, host: STAGING };
    expect(resolveWorkspaceCredentials(staging, { DATABRICKS_HOST: STAGING }, file)).toEqual({ ok: false, error: expect.stringContaining(`host in [prod] (${PATH}:7) is ${PROD}`) });
  });
});
