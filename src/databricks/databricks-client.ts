/**
 * One workspace's client: the HTTP core with its auth, plus one module per API. Build it with
 * `createDatabricksClient`; the credentials are either a PAT or an OAuth service principal.
 */
import type { ClientStatsSnapshot } from './client-stats.js';
import { DatabricksHttpClient, type DatabricksHttpOptions } from './http-client.js';
import { JobsApi } from './jobs-api.js';
import { OAuthM2MTokenProvider, type TokenResponse } from './oauth-m2m.js';
import { PipelinesApi } from './pipelines-api.js';
import { StatementsApi } from './statements-api.js';
import { PatTokenProvider } from './token-provider.js';

export type DatabricksCredentials =
  | { kind: 'pat'; token: string }
  | { kind: 'oauth-m2m'; clientId: string; clientSecret: string; scope?: string };

export interface DatabricksClientOptions extends Omit<DatabricksHttpOptions, 'auth'> {
  credentials: DatabricksCredentials;
}

export class DatabricksClient {
  readonly statements: StatementsApi;
  readonly pipelines: PipelinesApi;
  readonly jobs: JobsApi;

  constructor(readonly http: DatabricksHttpClient) {
    this.statements = new StatementsApi(http);
    this.pipelines = new PipelinesApi(http);
    this.jobs = new JobsApi(http);
  }

  get host(): string {
    return this.http.host;
  }

  stats(): ClientStatsSnapshot {
    return this.http.stats.snapshot();
  }
}

export function createDatabricksClient(options: DatabricksClientOptions): DatabricksClient {
  const { credentials, ...httpOptions } = options;
  // The OAuth provider sends its token request through the same HTTP core (retries, counters).
  let http: DatabricksHttpClient | undefined;
  const auth =
    credentials.kind === 'pat'
      ? new PatTokenProvider(credentials.token)
      : new OAuthM2MTokenProvider({
          clientId: credentials.clientId,
          clientSecret: credentials.clientSecret,
          scope: credentials.scope,
          now: options.now,
          onRefresh: (reason) => http?.stats.record({ type: 'token_refresh', reason }),
          requestToken: (form, basicAuth) =>
            http!.request<TokenResponse>({ method: 'POST', path: '/oidc/v1/token', form, basicAuth }),
        });
  http = new DatabricksHttpClient({ ...httpOptions, auth });
  return new DatabricksClient(http);
}
