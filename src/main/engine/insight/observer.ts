import { InsightAnalyzer } from '../../../shared/insight/analyzer.js';
import { contextText, type TokenCounter } from '../../../shared/insight/cost.js';
import type { ExchangeInsight } from '../../../shared/insight/findings.js';
import type { SchemaValidator } from '../../../shared/insight/rules.js';
import type { ExchangeEvent } from '../../../shared/traffic.js';
import type { Log } from '../log.js';
import { chunksOf, countPiece, loadTokenCounter } from './tokens.js';

/** an exchange being counted: its text's pieces, the sum so far (a large text is counted over several turns) */
interface Counting<T> {
  item: Item<T>;
  pieces: Iterator<string>;
  sum: number;
}

/** An exchange checked, with what the caller gave along with it (`tag`: e.g. the timeline's copy to update). */
export interface Observed<T> {
  event: ExchangeEvent;
  tag: T;
  /** the findings; `tokens` once counted (a second delivery of the same exchange) */
  insight: ExchangeInsight;
}

/** how long one turn of the checks may run before it yields to the event loop (the proxy's I/O goes first) */
const SLICE_MS = 4;
/** token counting is paced: at most TOKEN_SLICE_MS of every TOKEN_TICK_MS while traffic flows (≤ 4% of a core)… */
const TOKEN_TICK_MS = 50;
const TOKEN_SLICE_MS = 2;
/** …and more once the traffic pauses (no exchange for IDLE_MS) */
const IDLE_MS = 100;
const IDLE_SLICE_MS = 25;
const MAX_QUEUE = 50_000;

interface Item<T> {
  event: ExchangeEvent;
  server: string;
  tag: T;
  insight?: ExchangeInsight;
}

/**
 * The insight checks as an observer of finished exchanges: off the hot path, it takes the events the timeline
 * already receives, checks them on a later turn of the event loop in short slices, and hands the findings back in
 * batches; it never sees the wire and never changes an exchange. Token counts (the real tokenizer costs more than
 * all the checks together) follow in a second delivery, paced so that a proxy under full load keeps its throughput,
 * and catch up as soon as the traffic pauses. A queue past MAX_QUEUE drops its oldest, said once in the log.
 */
export class InsightObserver<T> {
  private readonly analyzer: InsightAnalyzer;
  private readonly checks: Array<Item<T>> = [];
  private readonly counts: Array<Item<T>> = [];
  private scheduled = false;
  private countTimer?: NodeJS.Timeout;
  private counter?: TokenCounter;
  private loading = false;
  private lastArrival = 0;
  private counting?: Counting<T>;
  private warned = false;
  private closed = false;

  constructor(
    validate: SchemaValidator,
    private readonly deliver: (batch: Array<Observed<T>>) => void,
    private readonly log: Log,
  ) {
    this.analyzer = new InsightAnalyzer({ validate });
  }

  /** The tokenizer is loaded with the first exchange: its tables take ~30 MB of heap, none while nothing is observed. */
  private loadCounter(): void {
    if (this.loading) return;
    this.loading = true;
    loadTokenCounter().then(
      (count) => {
        this.counter = count;
        this.scheduleCounts();
      },
      (error: Error) => this.log(`insight: no token counts (the tokenizer did not load: ${error.message})`, 'warn'),
    );
  }

  /** `server`: the proxy or file the exchange came through (tool lists are compared per server). */
  observe(event: ExchangeEvent, server: string, tag: T): void {
    if (this.closed) return;
    this.loadCounter();
    this.lastArrival = performance.now();
    this.bounded(this.checks).push({ event, server, tag });
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.checkTurn());
    }
  }

  close(): void {
    this.closed = true;
    this.checks.length = 0;
    this.counts.length = 0;
    clearTimeout(this.countTimer);
  }

  private bounded(queue: Array<Item<T>>): Array<Item<T>> {
    if (queue.length >= MAX_QUEUE) {
      queue.shift();
      if (!this.warned)
        this.log('insight: the checks fall behind the traffic; the oldest unchecked exchanges are skipped', 'warn');
      this.warned = true;
    }
    return queue;
  }

  private checkTurn(): void {
    this.scheduled = false;
    if (this.closed) return;
    const until = performance.now() + SLICE_MS;
    const batch: Array<Observed<T>> = [];
    while (this.checks.length > 0 && performance.now() < until) {
      const item = this.checks.shift() as Item<T>;
      try {
        item.insight = this.analyzer.analyze(item.event, item.server);
        batch.push({ event: item.event, tag: item.tag, insight: item.insight });
        this.bounded(this.counts).push(item);
      } catch (error) {
        this.log(`insight: exchange #${item.event.seq} could not be checked: ${(error as Error).message}`, 'warn');
      }
    }
    if (this.checks.length > 0 && !this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.checkTurn());
    }
    if (batch.length > 0) this.deliver(batch);
    this.scheduleCounts();
  }

  private scheduleCounts(): void {
    if (this.countTimer || !this.counter || (this.counts.length === 0 && !this.counting) || this.closed) return;
    this.countTimer = setTimeout(() => this.countTurn(), TOKEN_TICK_MS);
    this.countTimer.unref?.();
  }

  private countTurn(): void {
    this.countTimer = undefined;
    const count = this.counter;
    if (this.closed || !count) return;
    const now = performance.now();
    const until = now + (now - this.lastArrival > IDLE_MS ? IDLE_SLICE_MS : TOKEN_SLICE_MS);
    const batch: Array<Observed<T>> = [];
    while ((this.counting || this.counts.length > 0) && performance.now() < until) {
      const done = this.countSome(count, until);
      if (done) batch.push(done);
    }
    if (batch.length > 0) this.deliver(batch);
    this.scheduleCounts();
  }

  /** Counts the current exchange's pieces until `until`; answers it once all are counted. */
  private countSome(count: TokenCounter, until: number): Observed<T> | undefined {
    if (!this.counting) {
      const item = this.counts.shift() as Item<T>;
      const text = contextText(item.event);
      if (text === undefined) return undefined;
      if (text.length <= 4096) return this.counted(item, count(text)); // the common case, remembered by the counter
      this.counting = { item, pieces: chunksOf(text), sum: 0 };
    }
    const current = this.counting;
    for (let next = current.pieces.next(); !next.done; next = current.pieces.next()) {
      current.sum += countPiece(next.value);
      if (performance.now() >= until) return undefined; // the rest next turn
    }
    this.counting = undefined;
    return this.counted(current.item, current.sum);
  }

  private counted(item: Item<T>, tokens: number): Observed<T> {
    return { event: item.event, tag: item.tag, insight: { ...(item.insight as ExchangeInsight), tokens } };
  }
}
