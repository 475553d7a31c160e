/** Where the bearer token for each request comes from. */
export interface TokenProvider {
  /** The token to send now (cached; fetched or refreshed when needed). */
  getToken(): Promise<string>;
  /** Forgets the cached token after the server rejected it; false when there is nothing to refresh (a PAT). */
  invalidate(): boolean;
  /** Kind of credentials, for log lines (never the secret). */
  readonly kind: 'pat' | 'oauth-m2m';
}

/** A personal access token (`DATABRICKS_TOKEN`). */
export class PatTokenProvider implements TokenProvider {
  readonly kind = 'pat' as const;

  constructor(private readonly token: string) {}

  async getToken(): Promise<string> {
    return this.token;
  }

  invalidate(): boolean {
    return false;
  }

  // Keep the secret out of util.inspect / JSON.stringify of the provider.
  toJSON(): object {
    return { kind: this.kind };
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'PatTokenProvider { [REDACTED] }';
  }
}
