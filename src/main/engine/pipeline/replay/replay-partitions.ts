import type { CassetteEntry } from '../../../../shared/cassette/entry.js';
import { conditionOf } from '../../../../shared/mcp-protocol.js';
import type { CassetteStore } from '../../cassette/store.js';
import { applicable, type RequestContext } from './replay-protocol.js';

/** The entries of a key that may answer requests of one revision, and the replay cursor that walks them. */
export interface Partition {
  entries: readonly CassetteEntry[];
  cursor: string;
}

/** The applicable entries of a key's list, by key and revision (lists of one entry need none), until the cassette changes. */
export class ReplayPartitions {
  private readonly partitions = new Map<string, Partition>();
  private revision = -1;

  constructor(private readonly store: CassetteStore) {}

  /** The entries of a key's list that fit a request's revision (applicable()), and the cursor that walks them. */
  of(all: readonly CassetteEntry[], ctx: RequestContext, suffix = ''): Partition {
    if (all.length === 1) {
      const entries = applicable(all, ctx);
      return { entries, cursor: all[0].key + suffix };
    }
    if (this.revision !== this.store.revision) {
      this.partitions.clear();
      this.revision = this.store.revision;
    }
    const slot = ctx.version ?? ctx.era;
    // the store hands out a new list on each lookup: the key names the list (it changes only with the revision)
    const id = `${all[0].key}${suffix}\u0000${slot}`;
    const known = this.partitions.get(id);
    if (known) return known;
    const entries = applicable(all, ctx);
    const partition = { entries, cursor: entries === all ? all[0].key + suffix : `${all[0].key}${suffix}#${slot}` };
    // a missing-capability error fits by the client's capabilities, which a revision does not say: not kept
    if (all.some((e) => conditionOf(e.error) === 'capability')) return partition;
    this.partitions.set(id, partition);
    return partition;
  }
}
