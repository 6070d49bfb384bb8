import type { FSWatcher } from 'node:fs';
import { stat } from 'node:fs/promises';
import { distilledFor, type CassetteEntry } from '../../../shared/cassette/entry.js';
import type { Log } from '../log.js';
import { entryFileName, parseCassetteName } from './names.js';
import { folderPersister, type FolderChange, type FolderPersister } from './persist/folder.js';
import type { DebugFiles } from './persist/persister.js';
import { READ_ONLY_MESSAGE, SingleFilePersister } from './persist/single-file.js';

/** keys of server notifications filed after an exchange (keys.ts followUpKey) */
const FOLLOW_UP_PREFIX = 'after_';

export type NewEntry = Omit<CassetteEntry, 'n' | 'key' | 'file'>;

export interface StoreOptions {
  /** delete every cassette file in the folder first (record --clean) */
  clean?: boolean;
  /** follow hand edits of the folder (default true) */
  watch?: boolean;
  /** a second, looser key per entry (key order and --match-ignore paths ignored), tried when the exact key misses */
  looseKey?: (entry: CassetteEntry) => string | undefined;
  log?: Log;
}

/**
 * A cassette indexed once in memory (key → entries in recorded order) over its persister (persist/): a folder in
 * mcp-rewind's layout, or a single-file cassette (read-only). Kept current: changes made through the folder's
 * persister in this process (recordings, the app's hand edits) update the index as they are made; hand edits from
 * outside arrive through a folder watcher.
 */
export class CassetteStore {
  private readonly index = new Map<string, CassetteEntry[]>();
  private readonly loose = new Map<string, CassetteEntry[]>();
  private readonly looseKey?: (entry: CassetteEntry) => string | undefined;
  private followUps = 0;
  private changes = 0;
  private watcher?: FSWatcher;
  private unsubscribe?: () => void;
  private readonly pendingReloads = new Map<string, NodeJS.Timeout>();
  private readonly log: Log;

  private constructor(
    readonly dir: string,
    private readonly persister: FolderPersister | SingleFilePersister,
    options: StoreOptions,
  ) {
    this.log = options.log ?? (() => {});
    this.looseKey = options.looseKey;
  }

  static async open(dir: string, options: StoreOptions = {}): Promise<CassetteStore> {
    if (await stat(dir).then((s) => s.isFile(), () => false)) {
      if (options.clean) throw new Error(READ_ONLY_MESSAGE);
      const store = new CassetteStore(dir, new SingleFilePersister(dir), options);
      for (const entry of await store.persister.load(store.log)) store.insert(entry);
      return store;
    }
    const folder = folderPersister(dir);
    const store = new CassetteStore(dir, folder, options);
    await folder.prepare({ clean: options.clean });
    for (const entry of await folder.load(store.log)) store.insert(entry);
    store.unsubscribe = folder.onChange((change) => store.apply(change));
    if (options.watch !== false) store.watcher = folder.watch((name) => store.reloadSoon(folder, name), store.log);
    return store;
  }

  /** number of distilled entries */
  get size(): number {
    let n = 0;
    for (const list of this.index.values()) n += list.length;
    return n;
  }

  /** grows with every change to the index: what was derived from the entries is stale when it moved (O(1), unlike size) */
  get revision(): number {
    return this.changes;
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

  /** how many keys hold server notifications filed after an exchange (`after_<key>`): replay offers a server stream */
  get followUpKeys(): number {
    return this.followUps;
  }

  /** Writes a new entry through the persister (debug files first, the distilled file last, each atomically) and indexes it. */
  async add(method: string, key: string, entry: NewEntry, debug?: DebugFiles): Promise<CassetteEntry> {
    if (!(this.persister.writable && 'take' in this.persister)) throw new Error(READ_ONLY_MESSAGE);
    const n = this.persister.take();
    const stored: CassetteEntry = { ...entry, n, key, file: entryFileName(n, key) };
    await this.persister.append({ n, key, distilled: distilledFor(method, entry) as Record<string, unknown>, entry: stored, debug });
    this.insert(stored);
    return stored;
  }

  close(): void {
    this.watcher?.close();
    this.unsubscribe?.();
    for (const timer of this.pendingReloads.values()) clearTimeout(timer);
    this.pendingReloads.clear();
  }

  /** A change made through the folder's persister in this process: indexed at once. */
  private apply(change: FolderChange): void {
    if (change.entry) this.insert(change.entry);
    else this.remove(change.file, change.key);
  }

  /** A hand edit seen by the watcher: re-read shortly (editors write in several steps). */
  private reloadSoon(folder: FolderPersister, name: string): void {
    clearTimeout(this.pendingReloads.get(name));
    this.pendingReloads.set(
      name,
      setTimeout(() => {
        this.pendingReloads.delete(name);
        void folder.read(name, this.log).then((entry) => {
          if (entry === 'gone') this.removeFile(name);
          else if (entry) this.insert(entry); // replaces the old version in place
        });
      }, 30),
    );
  }

  private removeFile(name: string): void {
    const key = parseCassetteName(name)?.key;
    if (key !== undefined) this.remove(name, key);
  }

  private insert(entry: CassetteEntry): void {
    this.changes++;
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
    this.changes++;
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
