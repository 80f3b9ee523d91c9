import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/** An account of the test provider: what its ID token and UserInfo say (`sub` is its login name). */
export interface ProviderAccount {
  sub: string;
  email: string;
  email_verified: boolean;
}

/**
 * A real OpenID Connect provider (`oidc-provider`, a devDependency) on 127.0.0.1 and a random port,
 * with one confidential client (`client_secret_basic`, PKCE required) and the development login
 * screens, which {@link TestOidcProvider.signIn} drives with fetch and a cookie jar as a browser would.
 * Start it before the harness (the harness needs its issuer), then {@link TestOidcProvider.register}
 * the harness's redirect URI.
 */
export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Accounts by the login name typed on the provider's login screen. */
  accounts: Map<string, ProviderAccount>;
  /** Creates the provider with `redirectUri` as its client's only redirect URI. */
  register(redirectUri: string): void;
  /**
   * Follows `authorizeUrl` through the provider's login (as `login`) and consent screens; answers the
   * URL the provider redirects to at the end (the redirect URI with `code` and `state`, or `error`).
   */
  signIn(authorizeUrl: string, login: string): Promise<URL>;
  /** Makes the provider unreachable (its port refuses connections) or reachable again. */
  setDown(down: boolean): void;
  close(): Promise<void>;
}

/** Starts a {@link TestOidcProvider}. */
export async function startOidcProvider(): Promise<TestOidcProvider> {
  let provider: Provider | undefined;
  let down = false;
  const server = http.createServer((req, res) => {
    if (down || !provider) {
      res.statusCode = 503;
      return res.end('down');
    }
    void provider.callback()(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const accounts = new Map<string, ProviderAccount>();
  const clientId = 'pigeon-test';
  const clientSecret = 'pigeon-test-secret-0123456789';

  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    register(redirectUri) {
      provider = new Provider(issuer, {
        clients: [
          {
            client_id: clientId,
            client_secret: clientSecret,
            redirect_uris: [redirectUri],
            grant_types: ['authorization_code'],
            response_types: ['code'],
          },
        ],
        claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
        cookies: { keys: ['test-cookie-key-0123456789abcdef'] },
        pkce: { required: () => true },
        features: { devInteractions: { enabled: true } },
        findAccount: (_ctx, id) => {
          const a = accounts.get(id);
          return a ? { accountId: id, claims: () => ({ ...a, sub: id }) } : undefined;
        },
      });
    },
    async signIn(authorizeUrl, login) {
      const jar = new Map<string, string>();
      const remember = (res: Response) => {
        for (const c of res.headers.getSetCookie()) {
          const [pair] = c.split(';');
          const eq = pair.indexOf('=');
          jar.set(pair.slice(0, eq), pair.slice(eq + 1));
        }
      };
      const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
      let url = new URL(authorizeUrl);
      for (let hop = 0; hop < 20; hop++) {
        if (url.origin !== issuer) return url; // back at the relying party
        let res = await fetch(url, { redirect: 'manual', headers: { cookie: cookie() } });
        remember(res);
        if (res.status === 200) {
          // A login or consent screen: submit its form as the person would.
          const html = await res.text();
          const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
          const body = new URLSearchParams(
            prompt === 'login' ? { prompt, login, password: 'x' } : { prompt: 'consent' },
          );
          res = await fetch(url, {
            method: 'POST',
            redirect: 'manual',
            headers: { cookie: cookie(), 'content-type': 'application/x-www-form-urlencoded' },
            body,
          });
          remember(res);
        }
        const location = res.headers.get('location');
        if (!location) throw new Error(`provider answered ${res.status} at ${url.pathname}: ${await res.text()}`);
        url = new URL(location, url);
      }
      throw new Error('too many redirects at the provider');
    },
    setDown(value) {
      down = value;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
