/** OAuth2 in the sandbox: authorization codes, bearer tokens (with scopes), refresh tokens. */
import { randomBytes } from 'node:crypto';

export const ACCESS_TOKEN_LIFETIME_S = 604_800;
const CODE_LIFETIME_MS = 10 * 60_000;

export interface BearerToken {
  accessToken: string;
  refreshToken: string | null;
  userId: string;
  scopes: ReadonlySet<string>;
  expiresAt: number;
  /** Issued by the client_credentials grant (acts as the application owner). */
  clientCredentials: boolean;
}

interface AuthorizationCode {
  userId: string;
  scopes: string[];
  redirectUri: string | null;
  expiresAt: number;
}

function token(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}

export class OAuthStore {
  private readonly tokens = new Map<string, BearerToken>();
  private readonly refresh = new Map<string, BearerToken>();
  private readonly codes = new Map<string, AuthorizationCode>();

  issue(scopes: readonly string[], userId: string, options: { clientCredentials?: boolean; refresh?: boolean } = {}): BearerToken {
    const t: BearerToken = {
      accessToken: token(22),
      refreshToken: options.refresh === false ? null : token(22),
      userId,
      scopes: new Set(scopes),
      expiresAt: Date.now() + ACCESS_TOKEN_LIFETIME_S * 1000,
      clientCredentials: options.clientCredentials ?? false,
    };
    this.tokens.set(t.accessToken, t);
    if (t.refreshToken !== null) this.refresh.set(t.refreshToken, t);
    return t;
  }

  get(accessToken: string): BearerToken | undefined {
    const t = this.tokens.get(accessToken);
    if (t === undefined) return undefined;
    if (Date.now() >= t.expiresAt) {
      this.tokens.delete(accessToken);
      return undefined;
    }
    return t;
  }

  /** An authorization code, as if the user had clicked "Authorize" on the consent screen. */
  issueCode(scopes: readonly string[], userId: string, redirectUri: string | null): string {
    const code = token(20);
    this.codes.set(code, { userId, scopes: [...scopes], redirectUri, expiresAt: Date.now() + CODE_LIFETIME_MS });
    return code;
  }

  /** Exchange a code once; null when unknown, expired, used, or the redirect_uri differs. */
  exchange(code: string, redirectUri: string | null): BearerToken | null {
    const c = this.codes.get(code);
    if (c === undefined) return null;
    this.codes.delete(code);
    if (Date.now() >= c.expiresAt || (c.redirectUri !== null && c.redirectUri !== redirectUri)) return null;
    return this.issue(c.scopes, c.userId);
  }

  refreshToken(refreshToken: string): BearerToken | null {
    const old = this.refresh.get(refreshToken);
    if (old === undefined) return null;
    this.refresh.delete(refreshToken);
    this.tokens.delete(old.accessToken);
    return this.issue([...old.scopes], old.userId);
  }

  revoke(anyToken: string): void {
    const t = this.tokens.get(anyToken) ?? this.refresh.get(anyToken);
    if (t === undefined) return;
    this.tokens.delete(t.accessToken);
    if (t.refreshToken !== null) this.refresh.delete(t.refreshToken);
  }
}
