import type { ReplayMiss } from '../shared/cassette/miss.js';
import type { ExchangeEvent } from '../shared/traffic.js';
import { CassetteMissError } from './errors.js';

/** How many exchanges and misses a proxy or wrapped transport keeps (a test's worth; the oldest go first). */
const KEPT = 10_000;

const keep = <T>(list: T[], item: T): void => {
  list.push(item);
  if (list.length > KEPT) list.shift();
};

/** What went through a proxy or a wrapped transport: its exchanges and its replay misses, for the test to look at. */
export class Observed {
  private readonly seen: ExchangeEvent[] = [];
  private readonly missing: ReplayMiss[] = [];

  constructor(private readonly cassette: string | undefined) {}

  exchanged(event: ExchangeEvent): void {
    keep(this.seen, event);
  }

  missed(miss: ReplayMiss): void {
    keep(this.missing, miss);
  }

  exchanges(): ExchangeEvent[] {
    return [...this.seen];
  }

  misses(): ReplayMiss[] {
    return [...this.missing];
  }

  assertNoMisses(): void {
    if (this.missing.length > 0) throw new CassetteMissError(this.misses(), this.cassette);
  }
}
