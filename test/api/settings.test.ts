import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TIMELINE_COLUMNS, type SettingsInfo } from '../../src/shared/settings.js';
import { AppController } from '../../src/main/api/app-controller.js';
import { createApiHandlers } from '../../src/main/api/handlers.js';
import { defaultSettings, fitWindow, SettingsFile } from '../../src/main/api/files/settings-file.js';
import { app, call, cleanup, failure, keep } from './harness.js';

afterEach(cleanup);

/** A second app on the same data folder, reading the settings file afresh (as after a restart). */
function reopen(dataDir: string, logs: string[] = []) {
  const controller = keep(new AppController({ dataDir, log: (line) => void logs.push(line) }));
  return createApiHandlers(
    controller,
    { shell: 'browser', version: '0.0.0-test' },
    new SettingsFile(dataDir, (line) => void logs.push(line)),
  );
}

describe('api: settings', () => {
  it('answers the defaults when there is no settings file, without writing one', async () => {
    const { api, dataDir } = await app();
    const info = await call(api, 'settings.get', {});
    expect(info.settings).toEqual({
      theme: 'system',
      defaultCacheDir: join(dataDir, 'cassettes'),
      trafficCapacity: 100_000,
      autoScroll: true,
      recentFolders: [],
      restoreWorkspace: true,
      timelineLayout: { split: 'side', side: 50, bottom: 60 },
      timelineColumns: {
        order: [...TIMELINE_COLUMNS],
        hidden: ['revision'],
        widths: {},
        sort: null,
      },
      hideAppTraffic: true,
      preserveLog: false,
      proxiesBar: { height: null, collapsed: false },
      agentCanSend: false,
      breakpointHoldS: 45,
    });
    expect(info.settings).toEqual(defaultSettings(dataDir));
    expect(info.file).toBe(join(dataDir, 'settings.json'));
    expect(info.problem).toBeUndefined();
    expect(await readdir(dataDir)).not.toContain('settings.json');
  });

  it('changes only the fields given, writes them to disk, tells listeners, and reads them back after a restart', async () => {
    const { api, dataDir } = await app();
    const seen: SettingsInfo[] = [];
    const off = api.on('settings', (info) => void seen.push(info));
    const window = { x: 10, y: 20, width: 1000, height: 700, maximized: false };
    const out = await call(api, 'settings.set', { theme: 'dark', trafficCapacity: 5_000, window });
    expect(out.settings).toMatchObject({
      theme: 'dark',
      trafficCapacity: 5_000,
      autoScroll: true,
      recentFolders: [],
      window,
    });
    expect(seen).toEqual([out]);
    off();

    await call(api, 'settings.set', { autoScroll: false, recentFolders: ['/tmp/a', '/tmp/b'] });
    expect(seen).toHaveLength(1); // unsubscribed
    const onDisk = JSON.parse(await readFile(join(dataDir, 'settings.json'), 'utf8'));
    expect(onDisk).toEqual({
      ...defaultSettings(dataDir),
      theme: 'dark',
      trafficCapacity: 5_000,
      autoScroll: false,
      recentFolders: ['/tmp/a', '/tmp/b'],
      window,
    });
    expect((await readdir(dataDir)).filter((f) => f.endsWith('.tmp'))).toEqual([]); // atomic write left no temp file

    const again = reopen(dataDir);
    const reloaded = await call(again, 'settings.get', {});
    expect(reloaded.settings).toEqual(onDisk);
    expect(reloaded.problem).toBeUndefined();

    // window: null forgets the window state
    expect((await call(again, 'settings.set', { window: null })).settings.window).toBeUndefined();
    expect(JSON.parse(await readFile(join(dataDir, 'settings.json'), 'utf8'))).not.toHaveProperty('window');
  });

  it('rejects an invalid field with a message naming it, and changes nothing', async () => {
    const { api, dataDir } = await app();
    await call(api, 'settings.set', { theme: 'light' });
    expect(await failure(call(api, 'settings.set', { trafficCapacity: 10 }))).toMatch(
      /^settings\.set: invalid input: trafficCapacity: /,
    );
    expect(await failure(call(api, 'settings.set', { trafficCapacity: 2_000_000 }))).toMatch(/trafficCapacity/);
    expect(await failure(call(api, 'settings.set', { theme: 'purple' } as never))).toMatch(/theme/);
    expect(
      await failure(call(api, 'settings.set', { recentFolders: Array.from({ length: 11 }, (_, i) => `/f${i}`) })),
    ).toMatch(/recentFolders/);
    expect(await failure(call(api, 'settings.set', { defaultCacheDir: '  ' }))).toMatch(/defaultCacheDir/);
    expect(
      await failure(call(api, 'settings.set', { window: { x: 0, y: 0, width: 5, height: 600, maximized: false } })),
    ).toMatch(/window\.width/);
    expect(await failure(call(api, 'settings.set', { colour: 'red' } as never))).toMatch(/colour/);
    expect((await call(api, 'settings.get', {})).settings).toEqual({ ...defaultSettings(dataDir), theme: 'light' });
    expect(JSON.parse(await readFile(join(dataDir, 'settings.json'), 'utf8')).theme).toBe('light');
  });

  it('a write that fails is refused with the file named, and what it answers stays what is on disk', async () => {
    const { api, dataDir } = await app();
    await call(api, 'settings.set', { theme: 'light' });
    const file = join(dataDir, 'settings.json');
    await rm(file);
    await mkdir(file); // the rename onto a folder fails, as root too
    expect(await failure(call(api, 'settings.set', { preserveLog: true, theme: 'dark' }))).toContain(
      `cannot write ${file}`,
    );
    expect((await call(api, 'settings.get', {})).settings).toMatchObject({ preserveLog: false, theme: 'light' });
    await rm(file, { recursive: true });
    await call(api, 'settings.set', { autoScroll: false });
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({
      theme: 'light',
      preserveLog: false,
      autoScroll: false,
    });
  });

  it('replaces a corrupt settings file by the defaults, keeps it as settings.json.bad and reports it', async () => {
    const { dataDir } = await app();
    await writeFile(join(dataDir, 'settings.json'), '{ "theme": "dark", oops');
    const logs: string[] = [];
    const api = reopen(dataDir, logs);
    const info = await call(api, 'settings.get', {});
    expect(info.settings).toEqual(defaultSettings(dataDir));
    expect(info.problem).toMatch(/not JSON.*settings\.json\.bad.*default settings/);
    expect(logs.join('\n')).toContain('settings.json.bad');
    expect(await readFile(join(dataDir, 'settings.json.bad'), 'utf8')).toBe('{ "theme": "dark", oops');
    expect(await readdir(dataDir)).not.toContain('settings.json');

    // the app keeps working: a change writes a good file again
    await call(api, 'settings.set', { theme: 'dark' });
    expect(JSON.parse(await readFile(join(dataDir, 'settings.json'), 'utf8')).theme).toBe('dark');
  });

  it('treats a file that does not validate like a corrupt one, and fills fields missing from an older file', async () => {
    const { dataDir } = await app();
    await writeFile(join(dataDir, 'settings.json'), JSON.stringify({ theme: 'dark', trafficCapacity: 'lots' }));
    const info = await call(reopen(dataDir), 'settings.get', {});
    expect(info.settings.theme).toBe('system');
    expect(info.problem).toMatch(/trafficCapacity/);
    expect(await readdir(dataDir)).toContain('settings.json.bad');

    await writeFile(join(dataDir, 'settings.json'), JSON.stringify({ theme: 'dark' }));
    const older = await call(reopen(dataDir), 'settings.get', {});
    expect(older.settings).toEqual({ ...defaultSettings(dataDir), theme: 'dark' });
    expect(older.problem).toBeUndefined();
  });

  it('the proxies bar: a height dragged is kept; the fixed height of older versions reads as never dragged', async () => {
    const { dataDir } = await app();
    const bar = async (proxiesBar: unknown) => {
      await writeFile(join(dataDir, 'settings.json'), JSON.stringify({ theme: 'dark', proxiesBar }));
      return (await call(reopen(dataDir), 'settings.get', {})).settings.proxiesBar;
    };
    expect(await bar({ height: 120, collapsed: true })).toEqual({ height: null, collapsed: true });
    expect(await bar({ height: 264, collapsed: false })).toEqual({ height: 264, collapsed: false });
    expect(await bar({ height: null, collapsed: false })).toEqual({ height: null, collapsed: false });
  });

  it('fits a saved window onto a display that still exists', () => {
    const screen = { x: 0, y: 0, width: 1920, height: 1040 };
    const right = { x: 1920, y: 0, width: 1280, height: 1000 };
    const w = (x: number, y: number, width = 1200, height = 800) => ({ x, y, width, height, maximized: false });
    expect(fitWindow(w(100, 100), [screen])).toEqual(w(100, 100)); // already visible: unchanged
    expect(fitWindow(w(3000, 200), [screen])).toEqual(w(720, 200)); // its monitor is gone: moved back inside
    expect(fitWindow(w(2000, 50), [screen, right])).toEqual(w(2000, 50)); // on the second display
    expect(fitWindow(w(-500, -300, 4000, 3000), [screen])).toEqual(w(0, 0, 1920, 1040)); // too big: shrunk to the work area
    expect(fitWindow({ ...w(10, 10), maximized: true }, [])).toEqual({ ...w(10, 10), maximized: true });
  });
});
