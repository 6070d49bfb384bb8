import { afterEach, describe, expect, it, vi } from 'vitest';
import type * as NavigationModule from '../../src/renderer/src/stores/navigation.js';

/**
 * Hash routes of the renderer (stores/navigation.ts).
 *
 * Test setup for the node environment: the store reads window.location when it is created and listens to
 * 'hashchange', which Node lacks. A minimal real-behaving window stands in on globalThis: a session history of URLs
 * where setting location.hash to a new value pushes an entry and fires 'hashchange' (asynchronously, as browsers
 * do), history.replaceState changes the current entry without an event, and history.back() fires 'hashchange' when
 * the hash differs. The module is imported after the window is in place (it checks for one at load).
 */
class SessionHistoryWindow extends EventTarget {
  entries: Array<{ url: URL; state: unknown }>;
  index = 0;
  constructor(href: string) {
    super();
    this.entries = [{ url: new URL(href), state: null }];
  }
  private get current() {
    return this.entries[this.index];
  }
  private fire(oldURL: string): void {
    const newURL = this.current.url.href;
    setTimeout(() => this.dispatchEvent(Object.assign(new Event('hashchange'), { oldURL, newURL })), 0);
  }
  readonly location = (() => {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the getters below run with another `this`
    const win = this;
    return {
      get hash() {
        return win.current.url.hash;
      },
      set hash(value: string) {
        const next = new URL(win.current.url.href);
        next.hash = value;
        if (next.href === win.current.url.href) return;
        const old = win.current.url.href;
        win.entries.splice(win.index + 1, Infinity, { url: next, state: null });
        win.index++;
        win.fire(old);
      },
      get pathname() {
        return win.current.url.pathname;
      },
      get search() {
        return win.current.url.search;
      },
      get href() {
        return win.current.url.href;
      },
    };
  })();
  readonly history = (() => {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the getters below run with another `this`
    const win = this;
    return {
      get length() {
        return win.entries.length;
      },
      get state() {
        return win.current.state;
      },
      replaceState(state: unknown, _title: string, url: string) {
        win.entries[win.index] = { url: new URL(url, win.current.url), state };
      },
      back() {
        if (win.index === 0) return;
        const old = win.current.url;
        win.index--;
        if (old.hash !== win.current.url.hash) win.fire(old.href);
      },
    };
  })();
}

const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 5));
let win: SessionHistoryWindow;

async function load(href?: string): Promise<typeof NavigationModule> {
  vi.resetModules();
  const g = globalThis as { window?: unknown };
  if (href) g.window = win = new SessionHistoryWindow(href);
  else delete g.window;
  return import('../../src/renderer/src/stores/navigation.js');
}
afterEach(() => void delete (globalThis as { window?: unknown }).window);

describe('navigation: hash parsing', () => {
  it('names a view by #/name or #name, case-insensitive, ignoring what follows', async () => {
    const { viewFromHash, hashOf, VIEWS } = await load();
    expect(VIEWS.map((v) => v.id)).toEqual(['timeline', 'rules', 'cassettes', 'export', 'settings', 'intercept']);
    expect(viewFromHash('#/cassettes')).toBe('cassettes');
    expect(viewFromHash('#cassettes')).toBe('cassettes');
    expect(viewFromHash('#/Rules')).toBe('rules');
    expect(viewFromHash('#/rules/echo')).toBe('rules');
    expect(viewFromHash('#/settings?tab=theme')).toBe('settings');
    for (const hash of ['', '#', '#/', '#/nope', '#//rules', 'rules-x', '#/toString', '#/__proto__'])
      expect(viewFromHash(hash), hash).toBeUndefined();
    expect(hashOf('export')).toBe('#/export');
    for (const { id } of VIEWS) expect(viewFromHash(hashOf(id))).toBe(id);
  });

  it('without a window: the default view, and select / followHash touch nothing', async () => {
    const { useNavigation, followHash } = await load();
    expect(useNavigation.getState().view).toBe('timeline');
    useNavigation.getState().select('rules');
    expect(useNavigation.getState().view).toBe('rules');
    const off = followHash();
    expect(typeof off).toBe('function');
    off();
  });
});

describe('navigation: following the URL hash', () => {
  it('starts on the view the page URL names, or the timeline', async () => {
    expect((await load('http://127.0.0.1:5173/?token=t#/cassettes')).useNavigation.getState().view).toBe('cassettes');
    expect((await load('http://127.0.0.1:5173/#export')).useNavigation.getState().view).toBe('export');
    expect((await load('http://127.0.0.1:5173/#/nope')).useNavigation.getState().view).toBe('timeline');
    expect((await load('http://127.0.0.1:5173/')).useNavigation.getState().view).toBe('timeline');
  });

  it('select writes the hash (one history entry per change); back and a typed hash switch views', async () => {
    const { useNavigation, followHash } = await load('http://127.0.0.1:5173/index.html?token=t#/timeline');
    const off = followHash();
    const view = () => useNavigation.getState().view;

    useNavigation.getState().select('rules');
    expect(view()).toBe('rules');
    expect(win.location.hash).toBe('#/rules');
    expect(win.history.length).toBe(2);
    await tick(); // the hashchange of our own change agrees with the store: nothing moves
    expect(view()).toBe('rules');
    useNavigation.getState().select('rules');
    expect(win.history.length).toBe(2);

    win.location.hash = '#/settings'; // typed in the address bar
    await tick();
    expect(view()).toBe('settings');

    win.history.back();
    await tick();
    expect(view()).toBe('rules');
    win.history.back();
    await tick();
    expect(view()).toBe('timeline');

    // #rules (no slash) already names the view: select leaves it as it is
    win.location.hash = '#rules';
    await tick();
    expect(view()).toBe('rules');
    const entries = win.history.length;
    useNavigation.getState().select('rules');
    expect(win.location.hash).toBe('#rules');
    expect(win.history.length).toBe(entries);

    off();
    win.location.hash = '#/export';
    await tick();
    expect(view()).toBe('rules'); // no longer followed
  });

  it('an unknown hash is replaced in place by the current view (no history entry, path and query kept)', async () => {
    const { useNavigation, followHash } = await load('http://127.0.0.1:5173/app/?token=abc#/nope');
    const off = followHash();
    expect(win.location.href).toBe('http://127.0.0.1:5173/app/?token=abc#/timeline');
    expect(win.history.length).toBe(1);

    useNavigation.getState().select('cassettes');
    win.location.hash = '#/bogus';
    await tick();
    expect(useNavigation.getState().view).toBe('cassettes');
    expect(win.location.href).toBe('http://127.0.0.1:5173/app/?token=abc#/cassettes');
    expect(win.history.length).toBe(3); // the cassettes and bogus entries; the replace added none
    off();
  });
});
