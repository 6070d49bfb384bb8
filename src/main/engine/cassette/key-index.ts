import type { EntryMarks } from '../../../shared/cassette/entry.js';
import { FOLLOW_UP_PREFIX } from './keys.js';
import type { EntryName } from './persist/persister.js';

/** One indexed entry: its name, and its loose match key once known. Its content is read on first use (store.ts). */
export interface EntryRef extends EntryName {
  /** the loose match key (key order and --match-ignore paths ignored); undefined until the content pass read it */
  loose?: string;
  /** what a miss asks of it (its error's code, a requestState it issued): set on the few entries that have any */
  marks?: EntryMarks;
}

const HASH_SUFFIX = /_[0-9a-f]{16}(?:_r[0-9a-f]{16})?$/;

/**
 * The tool or method a key belongs to — `tools_call_<tool>`, `resources_read`, `tools_list` — its argument hash (and
 * a later round's `_r<hash>`) cut off. Replay names the keys recorded for the same tool when a call misses (replayer.ts).
 */
export const keyGroup = (key: string): string => key.replace(HASH_SUFFIX, '');

/**
 * The entries under one key: almost always one, kept as is (an array each would triple the index's memory: V8 gives
 * a one-element array room for seventeen), else a list in sequence-number order.
 */
export type Refs = EntryRef | EntryRef[];

/**
 * The in-memory indexes of a cassette, every lookup O(1) whatever its size: entries by exact key (recorded order),
 * by loose key, keys by tool/method (what a miss names instead), and the count of follow-up keys (whether replay
 * offers a server stream). Holds names only: about 0.3 kB per entry.
 */
export class KeyIndex {
  private readonly byKey = new Map<string, Refs>();
  private readonly byLoose = new Map<string, Refs>();
  private readonly groups = new Map<string, Set<string>>();
  private followUps = 0;
  private count = 0;
  private changes = 0;
  /** keys by the error code of an entry of theirs, and the requestStates issued (how many entries issued each) */
  private readonly errors = new Map<number, Set<string>>();
  private readonly states = new Map<string, number>();

  /** grows with every change (an entry added, removed, or its loose key learnt) */
  get revision(): number {
    return this.changes;
  }

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

  refs(key: string): Refs | undefined {
    return this.byKey.get(key);
  }

  looseRefs(loose: string): Refs | undefined {
    return this.byLoose.get(loose);
  }

  /** every entry, in no particular order (a snapshot) */
  all(): EntryRef[] {
    const out: EntryRef[] = [];
    for (const refs of this.byKey.values()) {
      if (Array.isArray(refs)) out.push(...refs);
      else out.push(refs);
    }
    return out;
  }

  /** Is this entry still indexed (not replaced or removed since)? */
  holds(ref: EntryRef): boolean {
    const refs = this.byKey.get(ref.key);
    return refs === ref || (Array.isArray(refs) && refs.includes(ref));
  }

  /** Indexes an entry, replacing the one of the same file. */
  add(ref: EntryRef): void {
    if (this.byKey.has(ref.key)) this.remove(ref.file, ref.key); // the file's earlier version
    const refs = this.byKey.get(ref.key);
    if (refs === undefined) {
      this.byKey.set(ref.key, ref);
      if (ref.key.startsWith(FOLLOW_UP_PREFIX)) this.followUps++;
      const group = keyGroup(ref.key);
      let keys = this.groups.get(group);
      if (!keys) this.groups.set(group, (keys = new Set()));
      keys.add(ref.key);
    } else this.byKey.set(ref.key, withRef(refs, ref));
    this.count++;
    this.changes++;
    if (ref.loose !== undefined) this.addLoose(ref, ref.loose);
    if (ref.marks) {
      const marks = ref.marks;
      ref.marks = undefined;
      this.setMarks(ref, marks);
    }
  }

  /** Files an entry under its loose key (once the content pass knows it). */
  setLoose(ref: EntryRef, loose: string | undefined): void {
    if (ref.loose === loose) return;
    this.changes++;
    if (ref.loose !== undefined) this.removeLoose(ref);
    ref.loose = loose;
    if (loose !== undefined) this.addLoose(ref, loose);
  }

  /** Removes the entry of a file; answers it. */
  remove(file: string, key: string): EntryRef | undefined {
    const refs = this.byKey.get(key);
    const gone =
      refs === undefined
        ? undefined
        : Array.isArray(refs)
          ? refs.find((e) => e.file === file)
          : refs.file === file
            ? refs
            : undefined;
    if (!refs || !gone) return undefined;
    const left = withoutRef(refs, gone);
    this.count--;
    this.changes++;
    if (left !== undefined) this.byKey.set(key, left);
    else {
      this.byKey.delete(key);
      if (key.startsWith(FOLLOW_UP_PREFIX)) this.followUps--;
      const group = keyGroup(key);
      const keys = this.groups.get(group);
      keys?.delete(key);
      if (keys?.size === 0) this.groups.delete(group);
    }
    if (gone.loose !== undefined) this.removeLoose(gone);
    if (gone.marks) this.unmark(gone);
    return gone;
  }

  /** Files what a miss asks of an entry (entry.ts entryMarksOf: its error's code, a requestState it issued). */
  setMarks(ref: EntryRef, marks: EntryMarks | undefined): void {
    if (ref.marks?.errorCode === marks?.errorCode && ref.marks?.issuedState === marks?.issuedState) return; // re-read: the same marks
    if (ref.marks) this.unmark(ref);
    ref.marks = marks;
    if (marks?.errorCode !== undefined) {
      let keys = this.errors.get(marks.errorCode);
      if (!keys) this.errors.set(marks.errorCode, (keys = new Set()));
      keys.add(ref.key);
    }
    if (marks?.issuedState !== undefined)
      this.states.set(marks.issuedState, (this.states.get(marks.issuedState) ?? 0) + 1);
    this.changes++;
  }

  /** Keys with an entry that answered this error code. */
  errorKeys(code: number): ReadonlySet<string> {
    return this.errors.get(code) ?? EMPTY;
  }

  /** Is this requestState one a recorded answer issued? */
  issued(state: string): boolean {
    return this.states.has(state);
  }

  private unmark(ref: EntryRef): void {
    const { errorCode, issuedState } = ref.marks as EntryMarks;
    if (errorCode !== undefined) {
      const keys = this.errors.get(errorCode);
      const stillThere =
        Array.isArray(this.byKey.get(ref.key)) &&
        (this.byKey.get(ref.key) as EntryRef[]).some((r) => r !== ref && r.marks?.errorCode === errorCode);
      if (!stillThere) keys?.delete(ref.key);
      if (keys?.size === 0) this.errors.delete(errorCode);
    }
    if (issuedState !== undefined) {
      const left = (this.states.get(issuedState) ?? 1) - 1;
      if (left > 0) this.states.set(issuedState, left);
      else this.states.delete(issuedState);
    }
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

  /** Up to `limit` keys of every group that starts with `prefix` (the other tools of tools/call), other than `except`. */
  nearByPrefix(prefix: string, except: string, limit: number): string[] {
    const found: string[] = [];
    for (const [group, keys] of this.groups) {
      if (!group.startsWith(prefix)) continue;
      for (const key of keys) {
        if (found.length >= limit) return found;
        if (key !== except) found.push(key);
      }
    }
    return found;
  }

  private addLoose(ref: EntryRef, loose: string): void {
    const refs = this.byLoose.get(loose);
    this.byLoose.set(loose, refs === undefined ? ref : withRef(refs, ref));
  }

  private removeLoose(ref: EntryRef): void {
    const loose = ref.loose as string;
    const refs = this.byLoose.get(loose);
    if (refs === undefined || (refs !== ref && !(Array.isArray(refs) && refs.includes(ref)))) return;
    const left = withoutRef(refs, ref);
    if (left === undefined) this.byLoose.delete(loose);
    else this.byLoose.set(loose, left);
  }
}

const EMPTY: ReadonlySet<string> = new Set();

/** The entries with one more, in sequence-number order (recorded order). */
function withRef(refs: Refs, ref: EntryRef): Refs {
  const list = Array.isArray(refs) ? refs : [refs];
  let i = list.length;
  while (i > 0 && list[i - 1].n > ref.n) i--;
  list.splice(i, 0, ref);
  return list;
}

/** The entries without one: undefined when none is left, the entry itself when one is. */
function withoutRef(refs: Refs, ref: EntryRef): Refs | undefined {
  if (!Array.isArray(refs)) return refs === ref ? undefined : refs;
  const left = refs.filter((r) => r !== ref);
  return left.length === 0 ? undefined : left.length === 1 ? left[0] : left;
}
