import type { CassetteStore } from '../../cassette/store.js';
import type { LiveExchange } from './exchange.js';

/**
 * A `subscriptions/listen` stream's notifications keep their place among the calls that caused them (a tool call that
 * changed the tool list, then `tools/list_changed`): the recorder notes when each call was answered and, for each
 * message of a listen stream, the last call answered before it (`streamAfter`); replay sends that message once the
 * client made that call again (or, if it never does, after 30 s or the recorded gap when longer).
 */
export class AnsweredCalls {
  private readonly answered: { at: number; key: string }[] = [];

  note(key: string): void {
    this.answered.push({ at: Date.now(), key });
    if (this.answered.length > 1024) this.answered.splice(0, 512);
  }

  /** For each streamed message of a listen exchange: the key of the last call answered after it opened and before the message. */
  streamAfter(exchange: LiveExchange): (string | null)[] | undefined {
    if (exchange.request.method !== 'subscriptions/listen' || exchange.timeline.streamMs.length === 0) return undefined;
    const out = exchange.timeline.streamMs.map((ms) => {
      const at = exchange.startedAt + ms;
      let key: string | null = null;
      for (const a of this.answered) if (a.at > exchange.startedAt && a.at <= at && a.key !== exchange.key) key = a.key;
      return key;
    });
    return out.some((k) => k !== null) ? out : undefined;
  }
}

/** The keys of the calls the cassette's listen streams wait for (their messages' `streamAfter`). */
export function awaitedCalls(store: CassetteStore): Set<string> {
  const keys = new Set<string>();
  for (const listen of store.nearKeys('subscriptions_listen', '', Infinity))
    for (const entry of store.lookup(listen) ?? []) for (const key of entry.streamAfter ?? []) if (key) keys.add(key);
  return keys;
}

/**
 * Replay's side: how many times each key a listen stream waits for was answered (others are not counted: a
 * cassette of 10,000 calls would keep a count of each), and promises for a count to be reached.
 */
export class CallWaiters {
  private readonly counts = new Map<string, number>();
  private readonly waiting = new Map<string, { n: number; resolve: () => void }[]>();

  count(key: string): number {
    return this.counts.get(key) ?? 0;
  }

  /** resolves once `key` was answered `n` times in all */
  until(key: string, n: number): Promise<void> {
    if (this.count(key) >= n) return Promise.resolve();
    return new Promise((resolve) => {
      const list = this.waiting.get(key) ?? [];
      list.push({ n, resolve });
      this.waiting.set(key, list);
    });
  }

  /** the key was answered: what waited for it goes on once the answer is written */
  answered(key: string): void {
    const n = this.count(key) + 1;
    this.counts.set(key, n);
    const list = this.waiting.get(key);
    if (!list) return;
    const due = list.filter((w) => w.n <= n);
    const rest = list.filter((w) => w.n > n);
    if (rest.length) this.waiting.set(key, rest);
    else this.waiting.delete(key);
    if (due.length) setImmediate(() => due.forEach((w) => w.resolve()));
  }
}
