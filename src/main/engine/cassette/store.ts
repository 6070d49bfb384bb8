import type { FSWatcher } from 'node:fs';
import { access, constants, stat } from 'node:fs/promises';
import { entryMarksOf, parseDistilled, type CassetteEntry } from '../../../shared/cassette/entry.js';
import { distilledFor } from '../../../shared/cassette/distilled-write.js';
import { CassetteMissingError } from '../errors.js';
import type { Log } from '../log.js';
import { indexContent, SLICE_MS, yieldToRequests } from './content-index.js';
import { EntryCache } from './entry-cache.js';
import { KeyIndex, type EntryRef, type Refs } from './key-index.js';
import { looseKeyOfEntry } from './keys.js';
import { entryFileName, parseCassetteName } from './names.js';
import { folderPersister, FolderPersister, type FolderChange } from './persist/folder.js';
import type { DebugFiles, EntryName, ReadEntry } from './persist/persister.js';
import { READ_ONLY_MESSAGE, SingleFilePersister } from './persist/single-file.js';
import { fileKey } from './safe-name.js';
import { jsonErrorMessage } from './safe-read.js';

export type NewEntry = Omit<CassetteEntry, 'n' | 'key' | 'file'>;

export interface StoreOptions {
  /** delete every cassette file in the folder first (record --clean) */
  clean?: boolean;
  /** make the folder when it does not exist (default true); false (replay): a missing cassette is a CassetteMissingError */
  create?: boolean;
  /** follow hand edits of the folder (default true) */
  watch?: boolean;
  /** index each entry by a second, looser key too (keys.ts looseKeyOfEntry: key order and these --match-ignore paths ignored), tried when the exact key misses */
  loose?: { ignore: readonly string[] };
  log?: Log;
  /** an added entry is fsynced (file and folder) before `add` resolves (default true); false: atomic writes only */
  durable?: boolean;
  /** how much parsed content to keep in memory, in bytes of their files (default 64 MiB) */
  cacheBytes?: number;
}

const DEFAULT_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * A cassette indexed in memory over its persister (persist/): a folder in mcp-rewind's layout, or a single-file
 * cassette (read-only). Indexing is by name, in the background of a running proxy: `ready` resolves once every entry
 * is indexed by its file name (exact keys; about 1 s for 300,000 entries), `indexed` once the loose keys are known too
 * (replay: a pass reading each file once). An entry's content is read on first use and kept in a cache bounded by
 * bytes, so memory stays a few hundred bytes per entry whatever the cassette's size. Kept current: changes made
 * through the folder's persister in this process (recordings, the app's hand edits) update the index as they are
 * made; hand edits from outside arrive through a folder watcher.
 */
export class CassetteStore {
  private readonly index = new KeyIndex();
  private readonly cache: EntryCache<EntryRef, CassetteEntry>;
  /** the loose keys' --match-ignore paths; undefined: no loose index */
  private readonly loose?: readonly string[];
  private readonly stopping = { stopped: false };
  /** added entries are fsynced before `add` resolves (recording then releases an answer only once it is on disk) */
  readonly durable: boolean;
  private readonly log: Log;
  private watcher?: FSWatcher;
  private unsubscribe?: () => void;
  private readonly pendingReloads = new Map<string, NodeJS.Timeout>();
  /** resolves once every entry is indexed by name: exact keys, follow-ups, numbering */
  ready!: Promise<void>;
  /** resolves once the loose keys are indexed too (at once after `ready` when none are asked for) */
  indexed!: Promise<void>;
  private readyNow = false;
  private indexedNow = false;
  /** how long indexing took, once done */
  indexedMs?: number;

  private constructor(
    readonly dir: string,
    private readonly persister: FolderPersister | SingleFilePersister,
    options: StoreOptions,
  ) {
    this.log = options.log ?? (() => {});
    this.loose = options.loose?.ignore;
    this.durable = options.durable !== false;
    this.cache = new EntryCache(options.cacheBytes ?? DEFAULT_CACHE_BYTES);
  }

  /** Opens a cassette and waits until it is fully indexed (verify, export, tests). */
  static async open(dir: string, options: StoreOptions = {}): Promise<CassetteStore> {
    const store = await CassetteStore.start(dir, options);
    await store.indexed;
    return store;
  }

  /**
   * Opens a cassette and indexes it in the background (a proxy: its port answers meanwhile, requests wait for
   * `ready`). What makes it unusable — a folder that cannot be read, a single file that is not a cassette — is
   * thrown here, at once.
   */
  static async start(dir: string, options: StoreOptions = {}): Promise<CassetteStore> {
    if (
      await stat(dir).then(
        (s) => s.isFile(),
        () => false,
      )
    ) {
      if (options.clean) throw new Error(READ_ONLY_MESSAGE);
      const file = new SingleFilePersister(dir);
      const store = new CassetteStore(dir, file, options);
      store.begin(await file.scan(store.log));
      return store;
    }
    if (options.create === false && !(await exists(dir))) throw new CassetteMissingError(dir);
    const folder = folderPersister(dir);
    await folder.prepare({ clean: options.clean });
    await access(folder.location, constants.R_OK | constants.X_OK);
    const store = new CassetteStore(dir, folder, options);
    store.unsubscribe = folder.onChange((change) => store.apply(change));
    if (options.watch !== false) store.watcher = folder.watch((name) => store.reloadSoon(folder, name), store.log);
    store.begin(folder.scan(store.log));
    return store;
  }

  private begin(names: EntryName[] | Promise<EntryName[]>): void {
    const t0 = performance.now();
    this.ready = this.indexNames(names);
    this.indexed = this.loose ? this.ready.then(() => this.indexContent()) : this.ready;
    this.indexed.then(
      () => (this.indexedMs = performance.now() - t0),
      (error: Error) => this.log(`cassette: cannot index ${this.dir}: ${error.message}`, 'warn'),
    );
  }

  /** Is the name index complete (requests need not wait)? */
  get isReady(): boolean {
    return this.readyNow;
  }

  /** Are the loose keys indexed too (a miss of the exact key is then a miss)? */
  get isIndexed(): boolean {
    return this.indexedNow;
  }

  /** number of distilled entries */
  get size(): number {
    return this.index.size;
  }

  /** grows with every change to the index: what was derived from the entries is stale when it moved (O(1), unlike size) */
  get revision(): number {
    return this.index.revision;
  }

  keys(): IterableIterator<string> {
    return this.index.keys();
  }

  /** Entries recorded for a key, oldest first (read from disk on first use). */
  lookup(key: string): readonly CassetteEntry[] | undefined {
    const refs = this.index.refs(key);
    return refs && this.entriesOf(refs);
  }

  /** Entries whose loose key (see StoreOptions.loose) matches, oldest first. */
  lookupLoose(looseKey: string): readonly CassetteEntry[] | undefined {
    const refs = this.index.looseRefs(looseKey);
    return refs && this.entriesOf(refs);
  }

  /** Is anything recorded under this key? (nothing is read) */
  has(key: string): boolean {
    return this.index.refs(key) !== undefined;
  }

  /** Up to `limit` keys recorded for a tool or method (key-index.ts keyGroup), other than `except`. */
  nearKeys(group: string, except: string, limit: number): string[] {
    return this.index.near(group, except, limit);
  }

  /** Up to `limit` keys of the tools or methods whose group starts with `prefix` (`tools_call_`), other than `except`. */
  nearKeysByPrefix(prefix: string, except: string, limit: number): string[] {
    return this.index.nearByPrefix(prefix, except, limit);
  }

  /** Keys with an entry that answered this JSON-RPC error code (replay: a method the server did not have). Complete once `indexed`. */
  errorKeys(code: number): ReadonlySet<string> {
    return this.index.errorKeys(code);
  }

  /** Did a recorded answer issue this requestState (2026-07-28 multi-round calls)? Complete once `indexed`. */
  issuedState(state: string): boolean {
    return this.index.issued(state);
  }

  /** how many keys hold server notifications filed after an exchange (`after_<key>`): replay offers a server stream */
  get followUpKeys(): number {
    return this.index.followUpKeys;
  }

  /**
   * Writes a new entry through the persister and indexes it; resolves once it is committed (durably, unless the
   * store was opened with `durable: false`). Its debug files follow (see flush).
   */
  async add(method: string, rawKey: string, entry: NewEntry, debug?: DebugFiles): Promise<CassetteEntry> {
    if (!(this.persister instanceof FolderPersister)) throw new Error(READ_ONLY_MESSAGE);
    const key = fileKey(rawKey); // indexed as its file names it (recorded keys are safe already, and kept)
    if (!this.readyNow) await this.ready; // the numbering continues after the folder's highest
    const n = this.persister.take();
    const stored: CassetteEntry = { ...entry, n, key, file: entryFileName(n, key) };
    // the persister tells every store on the folder, this one included, as soon as the entry is written
    await this.persister.append(
      { n, key, distilled: distilledFor(method, entry) as Record<string, unknown>, entry: stored, debug },
      { durable: this.durable },
    );
    return stored;
  }

  /** Resolves when the debug files of every entry added so far are written too. */
  async flush(): Promise<void> {
    if (this.persister instanceof FolderPersister) await this.persister.flush();
  }

  close(): void {
    this.stopping.stopped = true;
    this.watcher?.close();
    this.unsubscribe?.();
    for (const timer of this.pendingReloads.values()) clearTimeout(timer);
    this.pendingReloads.clear();
    this.cache.clear();
  }

  private async indexNames(listing: EntryName[] | Promise<EntryName[]>): Promise<void> {
    const names = await listing;
    let slice = performance.now();
    for (let i = 0; i < names.length; i++) {
      this.index.add(names[i]); // the listing's objects are the index's entries: nothing is copied
      if ((i & 1023) === 1023 && performance.now() - slice > SLICE_MS) {
        await yieldToRequests();
        slice = performance.now();
      }
    }
    this.readyNow = true;
  }

  /** The content pass (content-index.ts): replay's loose keys and the marks a miss asks about. */
  private async indexContent(): Promise<void> {
    await indexContent({
      index: this.index,
      persister: this.persister,
      folder: this.persister instanceof FolderPersister ? this.persister.location : undefined,
      ignore: this.loose as readonly string[],
      log: this.log,
      drop: (ref) => this.drop(ref),
      stopping: this.stopping,
    });
    this.indexedNow = true;
  }

  private entriesOf(refs: Refs): CassetteEntry[] | undefined {
    if (!Array.isArray(refs)) {
      const entry = this.entryOf(refs);
      return entry && [entry];
    }
    const entries: CassetteEntry[] = [];
    for (const ref of [...refs]) {
      const entry = this.entryOf(ref);
      if (entry) entries.push(entry);
    }
    return entries.length ? entries : undefined;
  }

  /** An entry's content: from the cache, else read (a file refused or broken now is dropped, with a warning). */
  private entryOf(ref: EntryRef): CassetteEntry | undefined {
    const cached = this.cache.get(ref);
    if (cached) return cached;
    const read = this.persister.read(ref.file, this.log);
    if (read === 'gone') this.drop(ref);
    return read && read !== 'gone' ? this.keep(ref, read) : undefined;
  }

  /** Parses what was read, keeps it in the cache and files its loose key. */
  private keep(ref: EntryRef, read: ReadEntry): CassetteEntry | undefined {
    let entry: CassetteEntry;
    try {
      entry = parseDistilled(ref.n, ref.key, ref.file, read.data);
    } catch (error) {
      this.log(`cassette: ignoring ${ref.file}: ${jsonErrorMessage(error)}`, 'warn');
      this.drop(ref);
      return undefined;
    }
    this.cache.set(ref, entry, read.bytes);
    if (this.loose && ref.loose === undefined) this.index.setLoose(ref, looseKeyOfEntry(entry, this.loose));
    this.index.setMarks(ref, entryMarksOf(entry));
    return entry;
  }

  private drop(ref: EntryRef): void {
    if (this.index.holds(ref)) this.index.remove(ref.file, ref.key);
    this.cache.delete(ref);
  }

  private insert(entry: CassetteEntry, bytes: number): void {
    const ref: EntryRef = {
      n: entry.n,
      key: entry.key,
      file: entry.file,
      loose: this.loose && looseKeyOfEntry(entry, this.loose),
      marks: entryMarksOf(entry),
    };
    const old = this.index.remove(entry.file, entry.key);
    if (old) this.cache.delete(old);
    this.index.add(ref);
    this.cache.set(ref, entry, bytes);
  }

  /** A change made through the folder's persister in this process: indexed at once. */
  private apply(change: FolderChange): void {
    if (change.entry) this.insert(change.entry, change.bytes ?? 0);
    else this.removeFile(change.file);
  }

  /** A hand edit seen by the watcher: re-read shortly (editors write in several steps). */
  private reloadSoon(folder: FolderPersister, name: string): void {
    clearTimeout(this.pendingReloads.get(name));
    this.pendingReloads.set(
      name,
      setTimeout(() => {
        this.pendingReloads.delete(name);
        const parsed = parseCassetteName(name);
        const read = folder.read(name, this.log);
        if (read === 'gone') return this.removeFile(name);
        if (!read || parsed?.key === undefined) return; // unreadable now: keep what we had
        try {
          this.insert(parseDistilled(parsed.n, parsed.key, name, read.data), read.bytes); // replaces the old version
        } catch (error) {
          this.log(`cassette: ignoring ${name}: ${jsonErrorMessage(error)}`, 'warn');
          this.removeFile(name);
        }
      }, 30),
    );
  }

  private removeFile(name: string): void {
    const key = parseCassetteName(name)?.key;
    const gone = key !== undefined ? this.index.remove(name, key) : undefined;
    if (gone) this.cache.delete(gone);
  }
}

const exists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    (error: NodeJS.ErrnoException) => error.code !== 'ENOENT',
  );
