import { describe, expect, it } from 'vitest';
import {
  ApiCallError,
  bridgeProtocols,
  bridgeUrl,
  createApi,
  signIn,
  createIpcApi,
  type IpcBridge,
} from '../../src/renderer/src/api/client.js';
import { toUiOptions } from '../../src/main/cli/ui-command.js';
import { userDataDir } from '../../src/main/web/user-data.js';

// The Electron adapter over a stand-in for the preload's window.rewind (Electron cannot run here): what is under test
// is the adapter's mapping of { ok, output | error } replies and of event subscriptions, not the IPC itself.
function bridge(): IpcBridge & { sent: Array<[string, unknown]>; emit(event: string, payload: unknown): void } {
  const listeners = new Map<string, Set<(p: unknown) => void>>();
  const sent: Array<[string, unknown]> = [];
  return {
    sent,
    async call(command, input) {
      sent.push([command, input]);
      return command === 'app.info'
        ? { ok: true, output: { shell: 'electron' } }
        : { ok: false, error: { message: `${command}: invalid input: id: too small` } };
    },
    on(event, listener) {
      const set = listeners.get(event) ?? new Set();
      listeners.set(event, set);
      set.add(listener);
      return () => void set.delete(listener);
    },
    emit(event, payload) {
      for (const l of listeners.get(event) ?? []) l(payload);
    },
  };
}

describe('renderer client: Electron IPC adapter', () => {
  it('resolves ok replies, rejects error replies with the message, and passes events through', async () => {
    const b = bridge();
    const api = createIpcApi(b);
    expect(api.transport).toBe('ipc');
    expect(api.status()).toBe('open');
    expect(await api.call('app.info', {})).toEqual({ shell: 'electron' });
    const error = await api.call('proxies.start', { id: '' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiCallError);
    expect(error).toMatchObject({ command: 'proxies.start', message: 'proxies.start: invalid input: id: too small' });
    expect(b.sent).toEqual([
      ['app.info', {}],
      ['proxies.start', { id: '' }],
    ]);
    const seen: unknown[] = [];
    const off = api.on('proxies', (list) => seen.push(list));
    b.emit('proxies', []);
    off();
    b.emit('proxies', [1]);
    expect(seen).toEqual([[]]);
  });

  it('createApi picks IPC when the preload bridge is there', () => {
    const g = globalThis as { rewind?: unknown };
    g.rewind = bridge();
    try {
      expect(createApi().transport).toBe('ipc');
    } finally {
      delete g.rewind;
    }
  });
});

describe('renderer client: WebSocket URL and token', () => {
  it('derives the bridge URL from the page location, with no credential in it', () => {
    expect(bridgeUrl({ protocol: 'http:', host: '127.0.0.1:5173' })).toBe('ws://127.0.0.1:5173/api');
    expect(bridgeUrl({ protocol: 'https:', host: 'x:2' })).toBe('wss://x:2/api');
    expect(bridgeProtocols('a-b_c')).toEqual(['mcp-rewind.v1', 'mcp-rewind.token.a-b_c']);
  });

  it('takes the one-time code out of the address bar, trades it once for the token (kept in sessionStorage); never reads a token from the URL', async () => {
    const stored = new Map<string, string>();
    const storage = {
      getItem: (k: string) => stored.get(k) ?? null,
      setItem: (k: string, v: string) => void stored.set(k, v),
    };
    const replaced: string[] = [];
    const history = {
      replaceState: (_d: unknown, _t: string, url?: string | URL | null) => void replaced.push(String(url)),
    };
    const codes = new Set(['c0de']);
    const exchange = async (code: string) => (codes.delete(code) ? 't0k' : undefined); // once, as the shell does
    expect(await signIn({ search: '?a=1&code=c0de', pathname: '/', hash: '#/rules' }, storage, history, exchange)).toBe(
      't0k',
    );
    expect(replaced).toEqual(['/?a=1#/rules']);
    // a reload (the code is spent: the tab keeps its token) and a plain load read it from sessionStorage
    expect(await signIn({ search: '?code=c0de', pathname: '/', hash: '' }, storage, history, exchange)).toBe('t0k');
    expect(await signIn({ search: '', pathname: '/', hash: '' }, storage, history, exchange)).toBe('t0k');
    expect(replaced).toEqual(['/?a=1#/rules', '/']);
    // an old ?token= link: taken out of the address bar, never used
    const empty = { getItem: () => null, setItem: () => {} };
    expect(await signIn({ search: '?token=t0k', pathname: '/', hash: '' }, empty, history, exchange)).toBeUndefined();
    expect(replaced.at(-1)).toBe('/');
    expect(await signIn({ search: '', pathname: '/', hash: '' }, empty, undefined, exchange)).toBeUndefined();
  });

  it('ends in "unauthorized" when the shell refuses the token, and fails calls with a clear message', async () => {
    const { createWebSocketApi } = await import('../../src/renderer/src/api/client.js');
    // a socket that never opens: the handshake was refused
    class Refused {
      readyState = 3;
      onopen = null;
      onclose: ((e: unknown) => void) | null = null;
      onerror = null;
      onmessage = null;
      constructor() {
        setTimeout(() => this.onclose?.({}), 5);
      }
      send(): void {}
      close(): void {}
    }
    let asked = 0;
    const api = createWebSocketApi({
      url: 'ws://x/api',
      protocols: ['p'],
      WebSocket: Refused,
      minDelayMs: 5,
      checkAuth: async () => (++asked, 'refused'),
    });
    const call = api.call('app.info', {});
    await expect(call).rejects.toThrow(/not signed in to mcp-rewind/);
    expect(api.status()).toBe('unauthorized');
    await new Promise((r) => setTimeout(r, 50));
    expect(asked).toBe(1); // no retry loop
    await expect(api.call('proxies.list', {})).rejects.toThrow(/run `mcp-rewind ui` and open the link it prints/);
    api.close();
  });
});

describe('mcp-rewind ui options', () => {
  it('puts the user data folder where each platform expects it', () => {
    expect(userDataDir({}, 'linux', '/home/u')).toBe('/home/u/.local/share/mcp-rewind');
    expect(userDataDir({ XDG_DATA_HOME: '/xdg' }, 'linux', '/home/u')).toBe('/xdg/mcp-rewind');
    expect(userDataDir({}, 'darwin', '/Users/u')).toBe('/Users/u/Library/Application Support/mcp-rewind');
    expect(userDataDir({ APPDATA: 'C:/Users/u/AppData/Roaming' }, 'win32', 'C:/Users/u')).toMatch(
      /Roaming[\\/]mcp-rewind$/,
    );
    expect(userDataDir({ MCP_REWIND_DATA_DIR: '/data' }, 'linux', '/home/u')).toBe('/data');
  });

  it('parses --port, --host, --no-open and --data-dir', () => {
    expect(toUiOptions({ port: '0', host: '127.0.0.1', open: true }, { XDG_DATA_HOME: '/xdg' })).toEqual({
      port: 0,
      host: '127.0.0.1',
      open: true,
      dataDir: '/xdg/mcp-rewind',
    });
    expect(toUiOptions({ port: '8080', host: '::1', open: false, dataDir: '/d' }, {})).toMatchObject({
      port: 8080,
      host: '::1',
      open: false,
      dataDir: '/d',
    });
    expect(() => toUiOptions({ port: '70000', host: 'h' }, {})).toThrow(/--port must be an integer/);
    expect(() => toUiOptions({ port: 'x', host: 'h' }, {})).toThrow(/--port/);
  });
});
