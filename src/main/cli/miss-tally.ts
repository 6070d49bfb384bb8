import { describeMiss, describeMisses, type ReplayMiss } from '../../shared/cassette/miss.js';

/** How many misses the summary at exit lists (the count is exact beyond). */
const LISTED = 100;

/** The replay misses of one CLI run: each one logged as it happens, the first LISTED kept for the summary at exit. */
export class MissTally {
  private readonly kept: ReplayMiss[] = [];
  count = 0;

  /** Counts a miss; answers its one-line description. */
  add(miss: ReplayMiss): string {
    this.count++;
    if (this.kept.length < LISTED) this.kept.push(miss);
    return describeMiss(miss);
  }

  /** `3 replay misses:` and a line each (`… and N more` beyond the ones kept). */
  summary(): string {
    const text = describeMisses(this.kept).replace(
      /^\d+ replay miss(es)?:/,
      `${this.count} replay miss${this.count === 1 ? '' : 'es'}:`,
    );
    return this.count > this.kept.length ? `${text}\n  … and ${this.count - this.kept.length} more` : text;
  }
}
