/**
 * OAuth machine-to-machine for a service principal: `POST /oidc/v1/token` with HTTP Basic
 * client_id:client_secret and `grant_type=client_credentials&scope=all-apis` (reference §2g). The token
 * is cached and fetched again shortly before it expires, or at once when the API rejects it.
 */
import type { TokenProvider } from './token-provider.js';
import { DatabricksApiError } from './errors.js';

export interface TokenResponse {
  access_token?: unknown;
  token_type?: unknown;
  expires_in?: unknown;
  scope?: unknown;
}

export interface OAuthM2MOptions {
  clientId: string;
  clientSecret: string;
  /** Sends the token request (wired to the workspace's HTTP client, so it gets retries too). */
  requestToken: (form: Record<string, string>, basic: { username: string; password: string }) => Promise<TokenResponse>;
  /** OAuth scope. @defaultValue 'all-apis' */
  scope?: string;
  /** Refresh this long before expiry. @defaultValue 120_000 (or a tenth of the lifetime if shorter) */
  refreshMarginMs?: number;
  /** Clock. @defaultValue Date.now */
  now?: () => number;
  /** Told when a token is fetched. */
  onRefresh?: (reason: 'initial' | 'expiring') => void;
}

export class OAuthM2MTokenProvider implements TokenProvider {
  readonly kind = 'oauth-m2m' as const;
  private token: string | null = null;
  private refreshAtMs = 0;
  private inflight: Promise<string> | null = null;
  private readonly options: OAuthM2MOptions;

  constructor(options: OAuthM2MOptions) {
    this.options = options;
  }

  async getToken(): Promise<string> {
    const now = (this.options.now ?? Date.now)();
    if (this.token && now < this.refreshAtMs) return this.token;
    // Callers that arrive together share one token request.
    this.inflight ??= this.fetch(this.token ? 'expiring' : 'initial').finally(() => {
      this.inflight = null;
    });
    return this.inflight;
  }

  invalidate(): boolean {
    this.token = null;
    this.refreshAtMs = 0;
    return true;
  }

  private async fetch(reason: 'initial' | 'expiring'): Promise<string> {
    const response = await this.options.requestToken(
      { grant_type: 'client_credentials', scope: this.options.scope ?? 'all-apis' },
      { username: this.options.clientId, password: this.options.clientSecret },
    );
    if (typeof response.access_token !== 'string' || !response.access_token) {
      throw new DatabricksApiError('Databricks token endpoint answered without an access_token', {
        errorCode: 'MALFORMED_RESPONSE',
        httpStatus: 200,
        endpoint: 'POST /oidc/v1/token',
      });
    }
    const lifetimeMs = (typeof response.expires_in === 'number' && response.expires_in > 0 ? response.expires_in : 3600) * 1_000;
    const margin = Math.min(this.options.refreshMarginMs ?? 120_000, lifetimeMs / 10);
    this.token = response.access_token;
    this.refreshAtMs = (this.options.now ?? Date.now)() + lifetimeMs - margin;
    this.options.onRefresh?.(reason);
    return this.token;
  }

  toJSON(): object {
    return { kind: this.kind, clientId: this.options.clientId };
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `OAuthM2MTokenProvider { clientId: ${this.options.clientId}, secret: [REDACTED] }`;
  }
}
