/**
 * Credentials the stand-in accepts: personal access tokens, and OAuth M2M clients that get one-hour
 * (configurable) bearer tokens from `/oidc/v1/token`. Tokens can be expired on demand.
 */
import { randomBytes } from 'node:crypto';

export interface OAuthClient {
  clientId: string;
  clientSecret: string;
}

export class TokenIssuer {
  private readonly pats: Set<string>;
  private readonly clients: Map<string, string>;
  private readonly issued = new Map<string, number>();
  issuedCount = 0;

  constructor(pats: string[], clients: OAuthClient[], private readonly lifetimeSec: number) {
    this.pats = new Set(pats);
    this.clients = new Map(clients.map((client) => [client.clientId, client.clientSecret]));
  }

  /** Issues a token for valid Basic credentials, else null. */
  issue(basicHeader: string | undefined): { access_token: string; token_type: 'Bearer'; expires_in: number; scope: string } | null {
    const match = /^Basic\s+(.+)$/i.exec(basicHeader ?? '');
    if (!match) return null;
    const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return null;
    const id = decoded.slice(0, colon);
    const secret = decoded.slice(colon + 1);
    if (!this.clients.has(id) || this.clients.get(id) !== secret) return null;
    const token = `eyJsb2NhbC1kYXRhYnJpY2tzIjp0cnVlfQ.${randomBytes(24).toString('base64url')}`;
    this.issued.set(token, Date.now() + this.lifetimeSec * 1_000);
    this.issuedCount += 1;
    return { access_token: token, token_type: 'Bearer', expires_in: this.lifetimeSec, scope: 'all-apis' };
  }

  /** Whether an `Authorization` header carries a valid, unexpired token. */
  accepts(authorization: string | undefined): boolean {
    const match = /^Bearer\s+(.+)$/i.exec(authorization ?? '');
    if (!match) return false;
    const token = match[1]!.trim();
    if (this.pats.has(token)) return true;
    const expiresAt = this.issued.get(token);
    return expiresAt !== undefined && Date.now() < expiresAt;
  }

  /** Revokes a personal access token (the "token revoked by an admin" fault); true when it was accepted. */
  revoke(pat: string): boolean {
    return this.pats.delete(pat);
  }

  /** Accepts a personal access token (again). */
  allow(pat: string): void {
    this.pats.add(pat);
  }

  /** Expires every OAuth token issued so far (the "token that expires" fault). */
  expireAll(): number {
    const count = this.issued.size;
    this.issued.clear();
    return count;
  }
}
