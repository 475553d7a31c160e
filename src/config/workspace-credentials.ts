/**
 * Turns a workspace's auth reference (names of environment variables) into client credentials, as a
 * pure function of `env`. A missing variable is an error that names it, never one that shows a value.
 */
import type { DatabricksCredentials } from '../databricks/databricks-client.js';
import type { WorkspaceWatch } from './watch-config.js';

export type CredentialsResult = { ok: true; credentials: DatabricksCredentials } | { ok: false; error: string };

export function resolveWorkspaceCredentials(workspace: WorkspaceWatch, env: NodeJS.ProcessEnv): CredentialsResult {
  const read = (name: string) => {
    const value = env[name]?.trim();
    return value ? value : null;
  };
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
