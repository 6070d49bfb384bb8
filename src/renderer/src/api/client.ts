import {
  bridgeProtocols,
  createIpcApi,
  createWebSocketApi,
  type AuthVerdict,
  type IpcBridge,
  type RewindClient,
} from '../../../shared/api-client.js';

/** The UI's client: the shared contract client (src/shared/api-client.ts) with the browser's sign-in. */
export * from '../../../shared/api-client.js';

/** ws:// URL of the shell's bridge, from the page's own location (no credential in it). */
export function bridgeUrl(location: { protocol: string; host: string }): string {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api`;
}

/** the sessionStorage key of the tab's token (the web shell's hand-off page writes it too: src/main/web/sign-in.ts) */
const TOKEN_KEY = 'mcp-rewind-token';

/** Trades a one-time code for the session token: POST /api/session, once (a spent or expired code: undefined). */
export async function exchangeCode(code: string): Promise<string | undefined> {
  try {
    const res = await fetch('/api/session', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code }),
      cache: 'no-store',
    });
    if (res.status !== 200) return undefined;
    const { token } = (await res.json()) as { token?: unknown };
    return typeof token === 'string' ? token : undefined;
  } catch {
    return undefined;
  }
}

/**
 * This tab's access token. It never comes from a URL: the printed link carries a one-time code (`?code=`), which
 * leaves the address bar (and so the history) before anything else, and is exchanged once for the token; the token
 * lives in sessionStorage (this origin only, port included: no other local server can read it, unlike a cookie),
 * where the hand-off page of `mcp-rewind ui` also puts it. A spent code leaves the tab with the token it had, if any.
 */
export async function signIn(
  location: Pick<Location, 'search' | 'pathname' | 'hash'>,
  storage: Pick<Storage, 'getItem' | 'setItem'>,
  history: Pick<History, 'replaceState'> | undefined,
  exchange: (code: string) => Promise<string | undefined> = exchangeCode,
): Promise<string | undefined> {
  const query = new URLSearchParams(location.search);
  const code = query.get('code');
  if (code !== null || query.has('token')) {
    query.delete('code');
    query.delete('token'); // an old link's: never kept in the address bar
    const rest = query.toString();
    history?.replaceState(null, '', `${location.pathname}${rest ? `?${rest}` : ''}${location.hash}`);
  }
  const token = code ? await exchange(code) : undefined;
  if (token) storage.setItem(TOKEN_KEY, token);
  return token ?? storage.getItem(TOKEN_KEY) ?? undefined;
}

/** Asks the shell whether a token is (still) good: GET /api/auth with it, 204 or 401. */
async function checkToken(token: string): Promise<AuthVerdict> {
  try {
    const res = await fetch('/api/auth', { headers: { authorization: `Bearer ${token}` }, cache: 'no-store' });
    return res.status === 204 ? 'ok' : res.status === 401 ? 'refused' : 'unreachable';
  } catch {
    return 'unreachable';
  }
}

/** The client for this page: Electron IPC when the preload bridge is there, else the web shell's WebSocket. */
export function createApi(): RewindClient {
  const bridge = (globalThis as { rewind?: Partial<IpcBridge> }).rewind;
  if (bridge && typeof bridge.call === 'function' && typeof bridge.on === 'function')
    return createIpcApi(bridge as IpcBridge);
  const token = signIn(globalThis.location, globalThis.sessionStorage, globalThis.history);
  return createWebSocketApi({
    url: bridgeUrl(globalThis.location),
    protocols: token.then((t) => (t ? bridgeProtocols(t) : undefined)),
    checkAuth: async () => {
      const t = await token;
      return t ? checkToken(t) : 'refused';
    },
  });
}
