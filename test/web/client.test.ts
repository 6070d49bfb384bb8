import { describe, expect, it } from 'vitest';
import { ApiCallError, bridgeUrl, createApi, createIpcApi, type IpcBridge } from '../../src/renderer/src/api/client.js';
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
      return command === 'app.info' ? { ok: true, output: { shell: 'electron' } } : { ok: false, error: { message: `${command}: invalid input: id: too small` } };
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

describe('renderer client: WebSocket URL', () => {
  it('derives the bridge URL from the page location and passes the token on', () => {
    expect(bridgeUrl({ protocol: 'http:', host: '127.0.0.1:5173', search: '?token=a-b_c' })).toBe('ws://127.0.0.1:5173/api?token=a-b_c');
    expect(bridgeUrl({ protocol: 'http:', host: 'localhost:1', search: '' })).toBe('ws://localhost:1/api'); // the cookie carries it
    expect(bridgeUrl({ protocol: 'https:', host: 'x:2', search: '?a=1&token=t%2Bu' })).toBe('wss://x:2/api?token=t%2Bu');
  });
});

describe('mcp-rewind ui options', () => {
  it('puts the user data folder where each platform expects it', () => {
    expect(userDataDir({}, 'linux', '/home/u')).toBe('/home/u/.local/share/mcp-rewind');
    expect(userDataDir({ XDG_DATA_HOME: '/xdg' }, 'linux', '/home/u')).toBe('/xdg/mcp-rewind');
    expect(userDataDir({}, 'darwin', '/Users/u')).toBe('/Users/u/Library/Application Support/mcp-rewind');
    expect(userDataDir({ APPDATA: 'C:/Users/u/AppData/Roaming' }, 'win32', 'C:/Users/u')).toMatch(/Roaming[\\/]mcp-rewind$/);
    expect(userDataDir({ MCP_REWIND_DATA_DIR: '/data' }, 'linux', '/home/u')).toBe('/data');
  });

  it('parses --port, --host, --no-open and --data-dir', () => {
    expect(toUiOptions({ port: '0', host: '127.0.0.1', open: true }, { XDG_DATA_HOME: '/xdg' })).toEqual({ port: 0, host: '127.0.0.1', open: true, dataDir: '/xdg/mcp-rewind' });
    expect(toUiOptions({ port: '8080', host: '::1', open: false, dataDir: '/d' }, {})).toMatchObject({ port: 8080, host: '::1', open: false, dataDir: '/d' });
    expect(() => toUiOptions({ port: '70000', host: 'h' }, {})).toThrow(/--port must be an integer/);
    expect(() => toUiOptions({ port: 'x', host: 'h' }, {})).toThrow(/--port/);
  });
});
