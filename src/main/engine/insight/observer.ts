import { InsightAnalyzer } from '../../../shared/insight/analyzer.js';
import type { TokenCounter } from '../../../shared/insight/cost.js';
import type { ExchangeInsight } from '../../../shared/insight/findings.js';
import type { SchemaValidator } from '../../../shared/insight/rules.js';
import type { ExchangeEvent } from '../../../shared/traffic.js';
import type { Log } from '../log.js';
import { loadTokenCounter } from './tokens.js';

/** An exchange checked, with what the caller gave along with it (`tag`: e.g. the timeline's copy to update). */
export interface Observed<T> {
  event: ExchangeEvent;
  tag: T;
  insight: ExchangeInsight;
}

/** how long one turn of the observer may run before it yields to the event loop (the proxy's I/O goes first) */
const SLICE_MS = 4;
const MAX_QUEUE = 50_000;

/**
 * The insight checks as an observer of finished exchanges: off the hot path, it takes the events the timeline
 * already receives, checks them on a later turn of the event loop in short slices, and hands the findings back in
 * batches. It never sees the wire and never changes an exchange. A queue that grows past MAX_QUEUE (a flood the
 * checks cannot keep up with) drops its oldest, said once in the log.
 */
export class InsightObserver<T> {
  private readonly analyzer: InsightAnalyzer;
  private readonly queue: Array<{ event: ExchangeEvent; server: string; tag: T }> = [];
  private scheduled = false;
  private counter?: TokenCounter;
  private readonly ready: Promise<void>;
  private warned = false;
  private closed = false;

  constructor(
    validate: SchemaValidator,
    private readonly deliver: (batch: Array<Observed<T>>) => void,
    private readonly log: Log,
  ) {
    this.analyzer = new InsightAnalyzer({ validate, countTokens: (text) => this.counter?.(text) ?? 0 });
    this.ready = loadTokenCounter().then(
      (count) => void (this.counter = count),
      (error: Error) => log(`insight: no token counts (the tokenizer did not load: ${error.message})`, 'warn'),
    );
  }

  /** `server`: the proxy or file the exchange came through (tool lists are compared per server). */
  observe(event: ExchangeEvent, server: string, tag: T): void {
    if (this.closed) return;
    if (this.queue.length >= MAX_QUEUE) {
      this.queue.shift();
      if (!this.warned) this.log('insight: the checks fall behind the traffic; the oldest unchecked exchanges are skipped', 'warn');
      this.warned = true;
    }
    this.queue.push({ event, server, tag });
    this.schedule();
  }

  close(): void {
    this.closed = true;
    this.queue.length = 0;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    void this.ready.then(() => setImmediate(() => this.turn()));
  }

  private turn(): void {
    this.scheduled = false;
    if (this.closed) return;
    const until = performance.now() + SLICE_MS;
    const batch: Array<Observed<T>> = [];
    while (this.queue.length > 0 && performance.now() < until) {
      const { event, server, tag } = this.queue.shift() as { event: ExchangeEvent; server: string; tag: T };
      try {
        batch.push({ event, tag, insight: this.analyzer.analyze(event, server) });
      } catch (error) {
        this.log(`insight: exchange #${event.seq} could not be checked: ${(error as Error).message}`, 'warn');
      }
    }
    if (this.queue.length > 0) this.schedule();
    if (batch.length > 0) this.deliver(batch);
  }
}
