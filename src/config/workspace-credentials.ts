/**
 * Turns a workspace's auth reference into client credentials, as a pure function of `env` and the
 * text of the Databricks profiles file (read by the caller). A missing variable is an error that
 * names it, never one that shows a value.
 */
import type { DatabricksCredentials } from '../databricks/databricks-client.js';
import { resolveDatabricksAuth, type DatabricksConfigFileText } from './databricks-auth.js';
import type { WorkspaceWatch } from './watch-config.js';

export type CredentialsResult = { ok: true; credentials: DatabricksCredentials } | { ok: false; error: string };

function origin(host: string): string {
  try {
    return new URL(host).origin;
  } catch {
    return host;
  }
}

export function resolveWorkspaceCredentials(workspace: WorkspaceWatch, env: NodeJS.ProcessEnv, configFile: DatabricksConfigFileText | null = null): CredentialsResult {
  const read = (name: string) => {
    const value = env[name]?.trim();
    return value ? value : null;
  };
  if (workspace.auth.kind === 'databricks-config') {
    const resolved = resolveDatabricksAuth(env, configFile, workspace.auth.profile);
    if (!resolved.ok) return { ok: false, error: `workspace "${workspace.name}": ${resolved.problems.join('; ')}` };
    const { auth } = resolved;
    // A profile's credentials belong to its host: never send them to another workspace.
    if (auth.credentialsFromProfile && auth.profileHost && auth.profileHost.origin !== origin(workspace.host)) {
      return {
        ok: false,
        error: `workspace "${workspace.name}": ${auth.profileHost.from} is ${auth.profileHost.origin ?? 'not a URL'} but the watch file says host: ${workspace.host}; make them the same workspace or name the profile for ${workspace.host}`,
      };
    }
    return { ok: true, credentials: auth.credentials };
  }
  if (workspace.auth.kind === 'pat') {
    const token = read(workspace.auth.tokenEnv);
    return token
      ? { ok: true, credentials: { kind: 'pat', token } }
      : { ok: false, error: `workspace "${workspace.name}": environment variable ${workspace.auth.tokenEnv} is not set; export it with a personal access token` };
  }
  const clientId = read(workspace.auth.clientIdEnv);
  const clientSecret = read(workspace.auth.clientSecretEnv);
  const missing = [!clientId && workspace.auth.clientIdEnv, !clientSecret && workspace.auth.clientSecretEnv].filter(Boolean);
  if (missing.length) {
    return { ok: false, error: `workspace "${workspace.name}": environment variable(s) ${missing.join(', ')} not set; export the service principal's OAuth client id and secret` };
  }
  return { ok: true, credentials: { kind: 'oauth-m2m', clientId: clientId!, clientSecret: clientSecret! } };
}
