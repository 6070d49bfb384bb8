import { DEFAULT_BREAKPOINT_HOLD_S } from '../../../shared/breakpoints.js';
import { EventEmitter } from 'node:events';
import { readFileSync, renameSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  SettingsPatchSchema,
  SettingsSchema,
  TIMELINE_COLUMNS,
  type Settings,
  type SettingsInfo,
  type SettingsPatch,
  type WindowState,
} from '../../../shared/settings.js';
import { describeZodError } from '../../../shared/rules/schema.js';
import { writeFileAtomic } from './atomic-file.js';
import { parseJson } from '../../../shared/json-depth.js';
import { terminalSafe } from '../../../shared/terminal-text.js';

/**
 * The app's settings: `<user data folder>/settings.json`, shared by the Electron shell and the browser shell (plain
 * Node, no electron). Read once (synchronously: the file is tiny and the shells need it before they start), written
 * atomically (temp file + rename, one write at a time). A file that cannot be read or does not validate never stops
 * the app: it is renamed to settings.json.bad, reported (log + `problem`), and the defaults are used.
 */

export const SETTINGS_FILE = 'settings.json';

export function defaultSettings(dataDir: string): Settings {
  return {
    theme: 'system',
    defaultCacheDir: join(resolve(dataDir), 'cassettes'),
    trafficCapacity: 100_000,
    autoScroll: true,
    recentFolders: [],
    restoreWorkspace: true,
    timelineLayout: { split: 'side', side: 50, bottom: 60 },
    timelineColumns: { order: [...TIMELINE_COLUMNS], hidden: ['revision'], widths: {}, sort: null },
    hideAppTraffic: true,
    preserveLog: false,
    proxiesBar: { height: null, collapsed: false },
    agentCanSend: false,
    breakpointHoldS: DEFAULT_BREAKPOINT_HOLD_S,
  };
}

type Listener = (info: SettingsInfo) => void;

export class SettingsFile {
  readonly dataDir: string;
  readonly file: string;
  private info?: SettingsInfo;
  private writes: Promise<unknown> = Promise.resolve();
  private readonly emitter = new EventEmitter<{ change: [SettingsInfo] }>();

  constructor(
    dataDir: string,
    private readonly log: (line: string) => void = (line) =>
      void process.stderr.write(terminalSafe(`mcp-rewind: ${line}\n`)),
  ) {
    this.dataDir = resolve(dataDir);
    this.file = join(this.dataDir, SETTINGS_FILE);
  }

  /** The settings now (the file is read on first use). */
  get(): SettingsInfo {
    return (this.info ??= this.load());
  }

  /**
   * Changes the fields given (validated; a failure names the field and changes nothing), writes the file and tells
   * every listener. `window: null` forgets the window state.
   */
  async set(patch: SettingsPatch): Promise<SettingsInfo> {
    const parsed = SettingsPatchSchema.safeParse(patch);
    if (!parsed.success) throw new Error(`settings: ${describeZodError(parsed.error)}`);
    const { window, ...rest } = parsed.data;
    const merged: Record<string, unknown> = { ...this.get().settings, ...dropUndefined(rest) };
    if (window === null) delete merged.window;
    else if (window !== undefined) merged.window = window;
    const checked = SettingsSchema.safeParse(merged);
    if (!checked.success) throw new Error(`settings: ${describeZodError(checked.error)}`);
    const before = this.get();
    const info: SettingsInfo = { ...before, settings: checked.data };
    this.info = info; // a set that follows before this write ends builds on it
    try {
      await this.write(checked.data);
    } catch (error) {
      if (this.info === info) this.info = before; // what is in memory stays what is on disk
      throw error;
    }
    this.emitter.emit('change', info);
    return info;
  }

  /** Subscribes to changes; returns the unsubscribe function. A failing listener never breaks a write. */
  on(listener: Listener): () => void {
    const safe = (info: SettingsInfo): void => {
      try {
        listener(info);
      } catch (error) {
        this.log(`a settings listener failed: ${(error as Error).message}`);
      }
    };
    this.emitter.on('change', safe);
    return () => void this.emitter.off('change', safe);
  }

  /** Resolves when every write asked for so far is on disk (e.g. before the app quits). */
  async flush(): Promise<void> {
    await this.writes;
  }

  private write(settings: Settings): Promise<void> {
    const text = `${JSON.stringify(settings, null, 2)}\n`;
    const run = this.writes.then(() => writeFileAtomic(this.file, text));
    this.writes = run.catch(() => {});
    return run;
  }

  private load(): SettingsInfo {
    const defaults = defaultSettings(this.dataDir);
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { settings: defaults, file: this.file };
      return this.reject(defaults, `cannot read it (${(error as Error).message})`, false);
    }
    let raw: unknown;
    try {
      raw = parseJson(text);
    } catch (error) {
      return this.reject(defaults, `it is not JSON (${(error as Error).message})`);
    }
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
      return this.reject(defaults, 'it is not a JSON object');
    // fields missing from an older file take their defaults
    const parsed = SettingsSchema.safeParse({ ...defaults, ...withoutOldDefaults(raw) });
    if (!parsed.success) return this.reject(defaults, describeZodError(parsed.error));
    return { settings: parsed.data, file: this.file };
  }

  /** Keeps the bad file as settings.json.bad (when it can be moved) and answers the defaults, with the problem. */
  private reject(defaults: Settings, why: string, move = true): SettingsInfo {
    let kept = '';
    if (move) {
      try {
        renameSync(this.file, `${this.file}.bad`);
        kept = `; it was kept as ${SETTINGS_FILE}.bad`;
      } catch (error) {
        kept = `; it could not be moved aside (${(error as Error).message})`;
      }
    }
    const problem = `${this.file} was not usable: ${why}${kept}; the default settings are used`;
    this.log(problem);
    return { settings: defaults, file: this.file, problem };
  }
}

/**
 * A file of a version before the proxies bar fitted its rows holds that version's fixed height (120 px) whether or
 * not the edge was ever dragged: read as never dragged (a drag lands on 120 only by chance).
 */
function withoutOldDefaults(raw: object): object {
  const bar = (raw as { proxiesBar?: { height?: unknown } }).proxiesBar;
  return bar && typeof bar === 'object' && bar.height === 120 ? { ...raw, proxiesBar: { ...bar, height: null } } : raw;
}

function dropUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

const shared = new Map<string, SettingsFile>();

/** The one SettingsFile of a data folder in this process (the API handlers and the Electron shell share it). */
export function settingsFile(dataDir: string, log?: (line: string) => void): SettingsFile {
  const key = resolve(dataDir);
  let file = shared.get(key);
  if (!file) shared.set(key, (file = new SettingsFile(key, log)));
  return file;
}

/** A display's usable area (Electron's `Display.workArea`). */
export interface Area {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Where to put a window whose bounds were saved: on the display it overlaps most (else the first), shrunk to fit
 * that display's work area and moved fully inside it, so a window saved on a monitor that is gone is never lost.
 */
export function fitWindow(saved: WindowState, areas: Area[]): WindowState {
  if (areas.length === 0) return saved;
  const overlap = (a: Area): number =>
    Math.max(0, Math.min(saved.x + saved.width, a.x + a.width) - Math.max(saved.x, a.x)) *
    Math.max(0, Math.min(saved.y + saved.height, a.y + a.height) - Math.max(saved.y, a.y));
  const area = areas.reduce((best, a) => (overlap(a) > overlap(best) ? a : best), areas[0]);
  const width = Math.min(saved.width, area.width);
  const height = Math.min(saved.height, area.height);
  const x = Math.min(Math.max(saved.x, area.x), area.x + area.width - width);
  const y = Math.min(Math.max(saved.y, area.y), area.y + area.height - height);
  return { x, y, width, height, maximized: saved.maximized };
}
