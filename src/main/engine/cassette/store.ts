import { watch, type FSWatcher } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { TEMP_PREFIX, writeAtomic, writerIsGone } from '../fs/atomic-write.js';
import { parseDistilled, distilledFor, type CassetteEntry } from '../../../shared/cassette/entry.js';
import { jsonErrorMessage, readCassetteFile, UnsafeEntryError } from './safe-read.js';

/**
 * `<n> <key>.json` and its debug siblings `.req.json`, `.res.json`, `.res-head.json`. mcp-rewind also writes
 * key-less debug files (`<n>.req.json`) for requests it does not cache; they only count for the numbering.
 */
const CASSETTE_FILE = /^(\d+)(?: (.+?))?(\.req|\.res|\.res-head)?\.json$/;
/** keys of server notifications filed after an exchange (keys.ts followUpKey) */
const FOLLOW_UP_PREFIX = 'after_';
const LOAD_CONCURRENCY = 32;
/** the `format` of a single-file cassette (`mcp-rewind export --out`), which `--cache FILE` replays read-only */
export const SINGLE_FILE_FORMAT = 'mcp-rewind-cassette';
const READ_ONLY_MESSAGE = 'a single-file cassette is read-only: record into a folder';

export interface DebugFiles {
  request: { method: string; url: string; headers: Record<string, string | string[]>; body: unknown };
  responseBody: string;
  responseHead: { status: number; headers: Record<string, string | string[]> };
}

export type NewEntry = Omit<CassetteEntry, 'n' | 'key' | 'file'>;

export interface StoreOptions {
  /** delete every cassette file in the folder first (record --clean) */
  clean?: boolean;
  /** follow hand edits of the folder (default true) */
  watch?: boolean;
  /** a second, looser key per entry (key order and --match-ignore paths ignored), tried when the exact key misses */
  looseKey?: (entry: CassetteEntry) => string | undefined;
  log?: (line: string) => void;
}

/**
 * A cassette folder in mcp-rewind's layout, indexed once in memory (key → entries in recorded order) and kept
 * current: our own writes update the index directly, hand edits arrive through a folder watcher.
 */
export class CassetteStore {
  private readonly index = new Map<string, CassetteEntry[]>();
  private readonly loose = new Map<string, CassetteEntry[]>();
  private readonly looseKey?: (entry: CassetteEntry) => string | undefined;
  private nextN = 1;
  private followUps = 0;
  private watcher?: FSWatcher;
  private readonly pendingReloads = new Map<string, NodeJS.Timeout>();
  private readonly log: (line: string) => void;
  /** opened from a single-file cassette (`mcp-rewind export --out`): no watcher, no writes */
  private readOnly = false;

  private constructor(readonly dir: string, options: StoreOptions) {
    this.log = options.log ?? (() => {});
    this.looseKey = options.looseKey;
  }

  static async open(dir: string, options: StoreOptions = {}): Promise<CassetteStore> {
    const store = new CassetteStore(dir, options);
    if (await stat(dir).then((s) => s.isFile(), () => false)) {
      if (options.clean) throw new Error(READ_ONLY_MESSAGE);
      await store.loadSingleFile();
      return store;
    }
    await mkdir(dir, { recursive: true });
    if (options.clean) await store.clean();
    await store.load();
    if (options.watch !== false) store.startWatching();
    return store;
  }

  /** number of distilled entries */
  get size(): number {
    let n = 0;
    for (const list of this.index.values()) n += list.length;
    return n;
  }

  keys(): IterableIterator<string> {
    return this.index.keys();
  }

  /** Entries whose loose key (see StoreOptions.looseKey) matches, oldest first. */
  lookupLoose(looseKey: string): readonly CassetteEntry[] | undefined {
    return this.loose.get(looseKey);
  }

  /** Entries recorded for a key, oldest first. */
  lookup(key: string): readonly CassetteEntry[] | undefined {
    return this.index.get(key);
  }

  /** Writes a new entry (debug files first, the distilled file last, each atomically) and indexes it. */
  async add(method: string, key: string, entry: NewEntry, debug?: DebugFiles): Promise<CassetteEntry> {
    if (this.readOnly) throw new Error(READ_ONLY_MESSAGE);
    const n = this.nextN++;
    const stem = `${n} ${key}`;
    const file = `${stem}.json`;
    if (debug) {
      await writeAtomic(join(this.dir, `${stem}.req.json`), JSON.stringify(debug.request, null, 2));
      await writeAtomic(join(this.dir, `${stem}.res.json`), debug.responseBody);
      await writeAtomic(join(this.dir, `${stem}.res-head.json`), JSON.stringify(debug.responseHead, null, 2));
    }
    await writeAtomic(join(this.dir, file), JSON.stringify(distilledFor(method, entry), null, 2));
    const stored: CassetteEntry = { ...entry, n, key, file };
    this.insert(stored);
    return stored;
  }

  close(): void {
    this.watcher?.close();
    for (const timer of this.pendingReloads.values()) clearTimeout(timer);
    this.pendingReloads.clear();
  }

  private async clean(): Promise<void> {
    // Only files that look like ours: `--clean --cache ~` must never wipe a home folder.
    for (const name of await readdir(this.dir)) {
      if (CASSETTE_FILE.test(name) || name.startsWith(TEMP_PREFIX)) await rm(join(this.dir, name), { force: true });
    }
  }

  private async load(): Promise<void> {
    const names = await readdir(this.dir);
    const distilled: string[] = [];
    for (const name of names) {
      if (name.startsWith(TEMP_PREFIX)) {
        if (writerIsGone(name)) await rm(join(this.dir, name), { force: true }); // left by a killed process
        continue;
      }
      const m = CASSETTE_FILE.exec(name);
      if (!m) continue;
      const n = Number(m[1]);
      if (n >= this.nextN) this.nextN = n + 1;
      if (m[2] && !m[3]) distilled.push(name);
    }
    // a bounded number of files open at once: a 10,000-entry cassette must load under `ulimit -n 256`
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < distilled.length) await this.loadFile(distilled[next++]);
    };
    await Promise.all(Array.from({ length: Math.min(LOAD_CONCURRENCY, distilled.length) }, worker));
  }

  /** (Re)reads one distilled file; a broken file is reported and left out, never fatal. */
  private async loadFile(name: string): Promise<void> {
    const m = CASSETTE_FILE.exec(name);
    if (!m || !m[2] || m[3]) return;
    const n = Number(m[1]);
    const key = m[2];
    let text: string;
    try {
      text = await readCassetteFile(this.dir, name);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') this.remove(name, key); // deleted
      else if (error instanceof UnsafeEntryError) {
        this.remove(name, key); // e.g. replaced by a symbolic link after it was loaded
        this.log(`cassette: ${error.message}`);
      } else this.log(`cassette: cannot read ${name}: ${(error as Error).message}`); // keep what we had
      return;
    }
    try {
      this.insert(parseDistilled(n, key, name, JSON.parse(text))); // replaces the old version in place
      if (n >= this.nextN) this.nextN = n + 1;
    } catch (error) {
      this.remove(name, key);
      this.log(`cassette: ignoring ${name}: ${jsonErrorMessage(error)}`);
    }
  }

  /** Indexes a single-file cassette: `{ format: "mcp-rewind-cassette", version: 1, entries: [{ n, key, entry }] }`. */
  private async loadSingleFile(): Promise<void> {
    this.readOnly = true;
    let data: { format?: unknown; version?: unknown; entries?: unknown };
    try {
      data = JSON.parse(await readFile(this.dir, 'utf8')) as typeof data;
    } catch (error) {
      throw new Error(`cassette ${this.dir}: not a readable JSON file: ${(error as Error).message}`, { cause: error });
    }
    if (data?.format !== SINGLE_FILE_FORMAT || data.version !== 1 || !Array.isArray(data.entries)) {
      throw new Error(`cassette ${this.dir}: not a single-file cassette (expected format "${SINGLE_FILE_FORMAT}", version 1)`);
    }
    for (const [i, item] of (data.entries as Array<{ n?: unknown; key?: unknown; entry?: unknown }>).entries()) {
      const n = Number(item?.n);
      const key = item?.key;
      if (!Number.isInteger(n) || n < 1 || typeof key !== 'string' || key === '') {
        this.log(`cassette: ignoring entries[${i}] of ${this.dir}: needs a positive integer n and a key`);
        continue;
      }
      try {
        this.insert(parseDistilled(n, key, `${n} ${key}.json`, item.entry));
        if (n >= this.nextN) this.nextN = n + 1;
      } catch (error) {
        this.log(`cassette: ignoring entries[${i}] (${key}) of ${this.dir}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
      }
    }
  }

  /** how many keys hold server notifications filed after an exchange (`after_<key>`): replay offers a server stream */
  get followUpKeys(): number {
    return this.followUps;
  }

  private insert(entry: CassetteEntry): void {
    this.remove(entry.file, entry.key);
    if (entry.key.startsWith(FOLLOW_UP_PREFIX) && !this.index.has(entry.key)) this.followUps++;
    insertSorted(this.index, entry.key, entry);
    const loose = this.looseKey?.(entry);
    if (loose !== undefined) insertSorted(this.loose, loose, entry);
  }

  private remove(file: string, key: string): void {
    const list = this.index.get(key);
    const i = list ? list.findIndex((e) => e.file === file) : -1;
    if (!list || i < 0) return;
    const [gone] = list.splice(i, 1);
    if (list.length === 0) {
      this.index.delete(key);
      if (key.startsWith(FOLLOW_UP_PREFIX)) this.followUps--;
    }
    const loose = this.looseKey?.(gone);
    const looseList = loose !== undefined ? this.loose.get(loose) : undefined;
    if (!looseList) return;
    const j = looseList.indexOf(gone);
    if (j >= 0) looseList.splice(j, 1);
    if (looseList.length === 0) this.loose.delete(loose as string);
  }

  private startWatching(): void {
    try {
      this.watcher = watch(this.dir, (_event, name) => {
        if (!name || name.startsWith('.')) return;
        const m = CASSETTE_FILE.exec(name);
        if (!m || !m[2] || m[3]) return;
        clearTimeout(this.pendingReloads.get(name));
        this.pendingReloads.set(
          name,
          setTimeout(() => {
            this.pendingReloads.delete(name);
            void this.loadFile(name);
          }, 30),
        );
      });
      this.watcher.on('error', (error) => this.log(`cassette: watcher stopped: ${error.message}`));
    } catch (error) {
      this.log(`cassette: cannot watch ${this.dir}: ${(error as Error).message}`);
    }
  }
}

/** Adds an entry to a key's list, kept in sequence-number order. */
function insertSorted(index: Map<string, CassetteEntry[]>, key: string, entry: CassetteEntry): void {
  const list = index.get(key);
  if (!list) {
    index.set(key, [entry]);
    return;
  }
  let i = list.length;
  while (i > 0 && list[i - 1].n > entry.n) i--;
  list.splice(i, 0, entry);
}
