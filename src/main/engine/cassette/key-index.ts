import type { EntryName } from './persist/persister.js';

/** One indexed entry: its name, and its loose match key once known. Its content is read on first use (store.ts). */
export interface EntryRef extends EntryName {
  /** the loose match key (key order and --match-ignore paths ignored); undefined until the content pass read it */
  loose?: string;
}

/** keys of server notifications filed after an exchange (keys.ts followUpKey) */
const FOLLOW_UP_PREFIX = 'after_';
const HASH_SUFFIX = /_[0-9a-f]{16}$/;

/**
 * The tool or method a key belongs to — `tools_call_<tool>`, `resources_read`, `tools_list` — its argument hash cut
 * off. Replay names the keys recorded for the same tool when a call misses (replayer.ts).
 */
export const keyGroup = (key: string): string => (HASH_SUFFIX.test(key) ? key.slice(0, -17) : key);

/**
 * The in-memory indexes of a cassette, every lookup O(1) whatever its size: entries by exact key (recorded order),
 * by loose key, keys by tool/method (what a miss names instead), and the count of follow-up keys (whether replay
 * offers a server stream). Holds names only: about 0.3 kB per entry.
 */
export class KeyIndex {
  private readonly byKey = new Map<string, EntryRef[]>();
  private readonly byLoose = new Map<string, EntryRef[]>();
  private readonly groups = new Map<string, Set<string>>();
  private followUps = 0;
  private count = 0;

  /** number of entries */
  get size(): number {
    return this.count;
  }

  /** how many keys hold server notifications filed after an exchange (`after_<key>`) */
  get followUpKeys(): number {
    return this.followUps;
  }

  keys(): IterableIterator<string> {
    return this.byKey.keys();
  }

  refs(key: string): readonly EntryRef[] | undefined {
    return this.byKey.get(key);
  }

  looseRefs(loose: string): readonly EntryRef[] | undefined {
    return this.byLoose.get(loose);
  }

  /** every entry, in no particular order (a snapshot) */
  all(): EntryRef[] {
    const out: EntryRef[] = [];
    for (const list of this.byKey.values()) for (const ref of list) out.push(ref);
    return out;
  }

  /** Is this entry still indexed (not replaced or removed since)? */
  holds(ref: EntryRef): boolean {
    return this.byKey.get(ref.key)?.includes(ref) ?? false;
  }

  /** Indexes an entry, replacing the one of the same file. */
  add(ref: EntryRef): void {
    this.remove(ref.file, ref.key);
    let list = this.byKey.get(ref.key);
    if (!list) {
      this.byKey.set(ref.key, (list = []));
      if (ref.key.startsWith(FOLLOW_UP_PREFIX)) this.followUps++;
      const group = keyGroup(ref.key);
      let keys = this.groups.get(group);
      if (!keys) this.groups.set(group, (keys = new Set()));
      keys.add(ref.key);
    }
    insertSorted(list, ref);
    this.count++;
    if (ref.loose !== undefined) this.addLoose(ref, ref.loose);
  }

  /** Files an entry under its loose key (once the content pass knows it). */
  setLoose(ref: EntryRef, loose: string | undefined): void {
    if (ref.loose === loose) return;
    if (ref.loose !== undefined) this.removeLoose(ref);
    ref.loose = loose;
    if (loose !== undefined) this.addLoose(ref, loose);
  }

  /** Removes the entry of a file; answers it. */
  remove(file: string, key: string): EntryRef | undefined {
    const list = this.byKey.get(key);
    const i = list ? list.findIndex((e) => e.file === file) : -1;
    if (!list || i < 0) return undefined;
    const [gone] = list.splice(i, 1);
    this.count--;
    if (list.length === 0) {
      this.byKey.delete(key);
      if (key.startsWith(FOLLOW_UP_PREFIX)) this.followUps--;
      const group = keyGroup(key);
      const keys = this.groups.get(group);
      keys?.delete(key);
      if (keys?.size === 0) this.groups.delete(group);
    }
    if (gone.loose !== undefined) this.removeLoose(gone);
    return gone;
  }

  /** Up to `limit` keys of a tool or method (keyGroup), other than `except`. */
  near(group: string, except: string, limit: number): string[] {
    const found: string[] = [];
    for (const key of this.groups.get(group) ?? []) {
      if (found.length >= limit) break;
      if (key !== except) found.push(key);
    }
    return found;
  }

  private addLoose(ref: EntryRef, loose: string): void {
    const list = this.byLoose.get(loose);
    if (list) insertSorted(list, ref);
    else this.byLoose.set(loose, [ref]);
  }

  private removeLoose(ref: EntryRef): void {
    const loose = ref.loose as string;
    const list = this.byLoose.get(loose);
    const i = list ? list.indexOf(ref) : -1;
    if (!list || i < 0) return;
    list.splice(i, 1);
    if (list.length === 0) this.byLoose.delete(loose);
  }
}

/** Adds an entry to a list kept in sequence-number order (recorded order). */
function insertSorted(list: EntryRef[], ref: EntryRef): void {
  let i = list.length;
  while (i > 0 && list[i - 1].n > ref.n) i--;
  list.splice(i, 0, ref);
}
