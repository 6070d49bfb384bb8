import { EventEmitter } from 'node:events';
import { watch, type FSWatcher } from 'node:fs';
import { lstat, mkdir, readdir, rename, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { CassetteEntry } from '../../../../shared/cassette/entry.js';
import { sweepOrphanTemps, TEMP_PREFIX, writeAtomic } from '../../fs/atomic-write.js';
import { pathInside } from '../../fs/inside-folder.js';
import { writeJsonAtomic } from '../../fs/json-pieces.js';
import type { Log } from '../../log.js';
import { debugFileNames, entryFileName, parseCassetteName, stemOfEntry } from '../names.js';
import {
  jsonErrorMessage,
  readCassetteFile,
  readCassetteFileSync,
  UnsafeEntryError,
  unsafeListing,
} from '../safe-read.js';
import { DebugWriter } from './debug-writer.js';
import { OwnWrites } from './own-writes.js';
import type { AppendOptions, EntryName, PersistedExchange, Persister, ReadEntry } from './persister.js';
import { parseJson } from '../../../../shared/json-depth.js';

/** A change made through this process (a recording, a hand edit in the app): `entry` undefined when the file is gone. */
export interface FolderChange {
  file: string;
  key: string;
  entry?: CassetteEntry;
  /** the size of the written file */
  bytes?: number;
}

const folders = new Map<string, FolderPersister>();

/** The one persister of a folder in this process: every store on it hears of every change made through it. */
export function folderPersister(dir: string): FolderPersister {
  const path = resolve(dir);
  let folder = folders.get(path);
  if (!folder) folders.set(path, (folder = new FolderPersister(path)));
  return folder;
}

/**
 * A cassette folder in mcp-rewind's layout. Owns the numbering (`<n>` after the highest in the folder), writes every
 * file atomically, and tells every store of this process on the folder about a change as it is made — no store
 * needs to wait for its folder watcher to see what the app just wrote. Hand edits from outside arrive through
 * `watch`.
 */
export class FolderPersister implements Persister {
  readonly format = 'folder' as const;
  readonly writable = true;
  private nextN = 1;
  /** the debug files of committed entries, written after them */
  private readonly debugFiles = new DebugWriter();
  private readonly events = new EventEmitter<{ change: [FolderChange] }>();
  /** what this process wrote itself: the watcher's events for it are not hand edits */
  private readonly own = new OwnWrites();

  constructor(readonly location: string) {}

  /** Stores follow the changes made through this persister (returns the unsubscribe function). */
  onChange(listener: (change: FolderChange) => void): () => void {
    this.events.on('change', listener);
    return () => void this.events.off('change', listener);
  }

  /** Makes the folder; `clean` deletes the cassette files first (only files that look like ours: `--clean --cache ~` must never wipe a home folder). */
  async prepare(options: { clean?: boolean } = {}): Promise<void> {
    await mkdir(this.location, { recursive: true });
    if (!options.clean) return;
    for (const name of await readdir(this.location)) {
      if (parseCassetteName(name) || name.startsWith(TEMP_PREFIX)) await rm(join(this.location, name), { force: true });
    }
  }

  /**
   * The folder's entries by name (the index; nothing is opened): temp files of dead writers are removed, the
   * numbering continues after the highest `<n>`, and entries the listing shows to be links or not regular files are
   * refused with a warning naming them (reading refuses them again: they may be swapped in later).
   */
  async scan(log: Log): Promise<EntryName[]> {
    const names: EntryName[] = [];
    const listing = await readdir(this.location, { withFileTypes: true });
    await sweepOrphanTemps(
      this.location,
      listing.map((dirent) => dirent.name),
    ); // temp files left by a killed process
    for (const dirent of listing) {
      const name = dirent.name;
      if (name.startsWith(TEMP_PREFIX)) continue;
      const parsed = parseCassetteName(name);
      if (!parsed) continue;
      this.count(parsed.n);
      if (parsed.kind !== 'entry') continue;
      const unsafe = unsafeListing(dirent);
      if (unsafe) log(`cassette: ${unsafe.message}`, 'warn');
      else names.push({ n: parsed.n, key: parsed.key as string, file: name, loose: undefined }); // the index's entry, its shape final
    }
    return names;
  }

  /** Reads one distilled file (links and non-regular files refused): its JSON, 'gone', or undefined (unreadable now). */
  read(name: string, log: Log): ReadEntry | 'gone' | undefined {
    let text: string;
    try {
      text = readCassetteFileSync(this.location, name);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
      if (error instanceof UnsafeEntryError) {
        log(`cassette: ${error.message}`, 'warn'); // e.g. replaced by a symbolic link after it was listed
        return 'gone';
      }
      log(`cassette: cannot read ${name}: ${(error as Error).message}`, 'warn');
      return undefined;
    }
    try {
      const data = parseJson(text);
      const parsed = parseCassetteName(name);
      if (parsed) this.count(parsed.n); // a file added by hand: the numbering continues after it
      return { data, bytes: text.length };
    } catch (error) {
      log(`cassette: ignoring ${name}: ${jsonErrorMessage(error)}`, 'warn');
      return 'gone';
    }
  }

  /** The sequence number of the next new entry (and takes it). */
  take(): number {
    return this.nextN++;
  }

  /**
   * Adds an exchange. The distilled entry is the commit point and is written first (durably unless told not to):
   * when the promise resolves, replay finds the exchange, also after a kill -9 or a power loss. Its debug files
   * follow in the background (see `flush`), atomically but not fsynced; a crash in between leaves an entry without
   * debug files (they are optional), never debug files without their entry, and no temp file survives the next scan.
   */
  async append(exchange: PersistedExchange, options: AppendOptions = {}): Promise<void> {
    const file = entryFileName(exchange.n, exchange.key as string);
    const room = this.debugFiles.hasRoom(); // a backlog of debug files: wait for it before adding to it
    if (room) await room;
    // streamed when large: a 100 MB result is not held again as one text, then as its bytes
    const bytes = await this.own.track(file, join(this.location, file), () =>
      writeJsonAtomic(this.location, file, exchange.distilled, { durable: options.durable }),
    );
    if (exchange.entry) this.changed({ file, key: exchange.key as string, entry: exchange.entry, bytes });
    if (exchange.debug) this.debugFiles.add(this.location, stemOfEntry(file), exchange.debug);
  }

  /** Resolves when the debug files of every append so far are written; rejects with the first failure. */
  flush(): Promise<void> {
    return this.debugFiles.flush();
  }

  /** Follows hand edits made outside this process; `onName` gets each changed entry file's name. */
  watch(onName: (name: string) => void, log: Log): FSWatcher | undefined {
    try {
      const watcher = watch(this.location, (_event, name) => {
        if (!name || name.startsWith('.') || parseCassetteName(name)?.kind !== 'entry') return;
        void this.own.isOwn(name, join(this.location, name)).then((own) => own || onName(name));
      });
      watcher.on('error', (error) => log(`cassette: watcher stopped: ${error.message}`, 'warn'));
      return watcher;
    } catch (error) {
      log(`cassette: cannot watch ${this.location}: ${(error as Error).message}`, 'warn');
      return undefined;
    }
  }

  // -------------------------------------------------------------------------------------------------------------
  // Hand edits (the app's Cassettes view): names are checked by the caller to be plain entry names of the folder.

  /** The text of an entry file, refusing links and non-regular files. */
  readText(file: string): Promise<string> {
    return readCassetteFile(this.location, file);
  }

  /** Writes an entry's text as given (validated by the caller, who parsed it into `entry`). */
  async writeText(file: string, text: string, entry: CassetteEntry): Promise<void> {
    await this.own.track(file, join(this.location, file), () => writeAtomic(this.location, file, text));
    this.count(entry.n);
    this.changed({ file, key: entry.key, entry, bytes: text.length });
  }

  /** Deletes an entry and its debug siblings. */
  async delete(file: string): Promise<void> {
    await rm(pathInside(this.location, file));
    await Promise.all(
      debugFileNames(stemOfEntry(file)).map((name) => rm(pathInside(this.location, name), { force: true })),
    );
    const parsed = parseCassetteName(file);
    if (parsed?.key !== undefined) this.changed({ file, key: parsed.key });
  }

  /** The number after the highest of the folder as it is now (a copy goes there). */
  async freshN(): Promise<number> {
    for (const name of await readdir(this.location)) {
      const parsed = parseCassetteName(name);
      if (parsed) this.count(parsed.n);
    }
    return this.take();
  }

  /**
   * Gives an entry (and its debug files) a new name, keeping its number: debug files first, the distilled file last
   * (as recording writes), so a watcher never sees a half-renamed entry. Refuses a name already taken.
   */
  async rename(file: string, target: string, entry: CassetteEntry): Promise<void> {
    const at = (name: string): string => pathInside(this.location, name); // both names: plain names inside the folder
    const taken = async (name: string): Promise<boolean> =>
      (await lstat(at(name)).catch(() => undefined)) !== undefined;
    const from = debugFileNames(stemOfEntry(file));
    const to = debugFileNames(stemOfEntry(target));
    for (const name of [target, ...to])
      if (await taken(name)) throw new Error(`key: "${entry.key}" is taken: ${at(name)} exists`);
    for (let i = 0; i < from.length; i++) if (await taken(from[i])) await rename(at(from[i]), at(to[i]));
    await rename(at(file), at(target));
    const old = parseCassetteName(file);
    if (old?.key !== undefined) this.changed({ file, key: old.key });
    this.changed({ file: target, key: entry.key, entry });
  }

  private count(n: number): void {
    if (n >= this.nextN) this.nextN = n + 1;
  }

  private changed(change: FolderChange): void {
    this.events.emit('change', change);
  }
}
