import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveTheme, syncSettings, useSettings } from '../../src/renderer/src/stores/settings.js';
import { connectStores } from '../../src/renderer/src/stores/connection.js';
import { defaultSettings } from '../../src/main/api/files/settings-file.js';
import { browserShell, closeAll, closers, eventually } from './shell.js';

/**
 * The Settings store over the browser shell (startUi: AppController + the real handler table, settings.json in a
 * temp data folder).
 *
 * Test setup for the node environment: the store applies the theme to <html> and follows the OS colour scheme
 * through window.matchMedia, which Node lacks. Minimal real-behaving stand-ins go on globalThis: a `document` whose
 * documentElement has a dataset and a style, and a matchMedia whose '(prefers-color-scheme: dark)' list is an
 * EventTarget firing 'change' when the test switches the OS scheme (as a browser does).
 */
class DarkQuery extends EventTarget {
  readonly media = '(prefers-color-scheme: dark)';
  matches = false;
  listeners = 0;
  override addEventListener(...args: Parameters<EventTarget['addEventListener']>): void {
    this.listeners++;
    super.addEventListener(...args);
  }
  override removeEventListener(...args: Parameters<EventTarget['removeEventListener']>): void {
    this.listeners--;
    super.removeEventListener(...args);
  }
}
const os = new DarkQuery();
const setOsDark = (dark: boolean): void => {
  os.matches = dark;
  os.dispatchEvent(new Event('change'));
};
const html = { dataset: {} as Record<string, string>, style: {} as Record<string, string> };
Object.assign(globalThis, {
  window: {
    matchMedia: (query: string) =>
      query === os.media ? os : { matches: false, addEventListener() {}, removeEventListener() {} },
  },
  document: { documentElement: html },
});

afterEach(closeAll);
beforeEach(() => {
  useSettings.setState(useSettings.getInitialState(), true);
  setOsDark(false);
});

const state = () => useSettings.getState();

async function attached() {
  const shell = await browserShell();
  closers.push(connectStores(shell.api));
  await eventually(() => state().loaded, 'the settings');
  return shell;
}

describe('settings store: theme', () => {
  it('resolves "system" from the OS scheme, and light/dark as they are', () => {
    expect(resolveTheme('light', true)).toBe('light');
    expect(resolveTheme('dark', false)).toBe('dark');
    expect(resolveTheme('system', true)).toBe('dark');
    expect(resolveTheme('system', false)).toBe('light');
    expect(resolveTheme('system')).toBe('light'); // from matchMedia
    setOsDark(true);
    expect(resolveTheme('system')).toBe('dark');
  });

  it('applies the setting to <html>, follows the OS only for "system", and lets go when detached', async () => {
    const { api } = await browserShell();
    const detach = connectStores(api);
    expect(html.dataset).toMatchObject({ theme: 'light', themeSetting: 'system' }); // before the first answer: system
    await eventually(() => state().loaded, 'the settings');
    setOsDark(true);
    expect(html).toMatchObject({ dataset: { theme: 'dark', themeSetting: 'system' }, style: { colorScheme: 'dark' } });

    await state().update({ theme: 'light' });
    expect(html).toMatchObject({ dataset: { theme: 'light', themeSetting: 'light' }, style: { colorScheme: 'light' } });
    setOsDark(false);
    setOsDark(true);
    expect(html.dataset.theme).toBe('light');

    expect(os.listeners).toBe(1);
    detach();
    expect(os.listeners).toBe(0);
    useSettings.setState({ settings: { ...state().settings!, theme: 'dark' } });
    expect(html.dataset.theme).toBe('light'); // no longer followed
  });
});

describe('settings store', () => {
  it('refuses updates before it is attached', async () => {
    await expect(state().update({ theme: 'dark' })).rejects.toThrow('mcp-rewind: not connected to the engine yet');
    await syncSettings();
    expect(state()).toMatchObject({ loaded: false, saving: 0 });
    expect(state().settings).toBeUndefined();
  });

  it('loads the defaults, shows an update at once, saves it to the settings file', async () => {
    const { dataDir } = await attached();
    expect(state()).toMatchObject({
      saving: 0,
      file: join(dataDir, 'settings.json'),
      problem: undefined,
      error: undefined,
    });
    expect(state().settings).toEqual(defaultSettings(dataDir)); // the engine's defaults (pinned in test/api/settings.test.ts)

    const saving = state().update({ theme: 'dark', autoScroll: false });
    expect(state().settings).toMatchObject({ theme: 'dark', autoScroll: false }); // before the round trip
    expect(state().saving).toBe(1);
    await saving;
    expect(state().saving).toBe(0);
    expect(state().settings).toMatchObject({ theme: 'dark', autoScroll: false });
    expect(JSON.parse(await readFile(join(dataDir, 'settings.json'), 'utf8'))).toMatchObject({
      theme: 'dark',
      autoScroll: false,
    });
  });

  it('undoes a refused update (the engine names the field) and keeps the error until a save succeeds', async () => {
    await attached();
    const refused = state().update({ trafficCapacity: 10 });
    expect(state().settings?.trafficCapacity).toBe(10); // optimistic
    await expect(refused).rejects.toThrow(/^settings\.set: invalid input: trafficCapacity/);
    expect(state().saving).toBe(0);
    await eventually(() => state().settings?.trafficCapacity === 100_000, 'the undo');
    expect(state().error).toMatch(/trafficCapacity/);

    // a wrongly typed field is not shown optimistically, and refused too
    const wrong = state().update({ autoScroll: 'yes' as unknown as boolean });
    expect(state().settings?.autoScroll).toBe(true);
    await expect(wrong).rejects.toThrow(/autoScroll/);

    await state().update({ trafficCapacity: 5_000 });
    expect(state()).toMatchObject({ error: undefined, settings: { trafficCapacity: 5_000 } });
  });

  it('forgets the window state with window: null, optimistically too', async () => {
    await attached();
    const window = { x: 1, y: 2, width: 800, height: 600, maximized: true };
    await state().update({ window });
    expect(state().settings?.window).toEqual(window);
    const forgetting = state().update({ window: null });
    expect(state().settings).not.toHaveProperty('window');
    await forgetting;
    expect(state().settings).not.toHaveProperty('window');
  });

  it('follows the settings event (another window saving) and reloads on demand', async () => {
    const { api } = await attached();
    await api.call('settings.set', { theme: 'light', recentFolders: ['/elsewhere'] });
    await eventually(() => state().settings?.theme === 'light', 'the settings event');
    expect(state().settings?.recentFolders).toEqual(['/elsewhere']);
    expect(html.dataset.theme).toBe('light');

    useSettings.setState({ settings: undefined, loaded: false, error: 'stale' });
    await syncSettings();
    expect(state()).toMatchObject({ loaded: true, error: undefined, settings: { theme: 'light' } });
  });
});
