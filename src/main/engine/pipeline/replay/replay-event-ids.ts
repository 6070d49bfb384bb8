import { randomUUID } from 'node:crypto';
import type { Framing } from '../../../../shared/cassette/entry.js';

/** Where a replayed SSE event id points: the replayed stream, and the recorded message it carried (-1: priming). */
export interface ReplayedEvent {
  stream: string;
  at: number;
}

/** The event ids a replay session gave, so a client's Last-Event-ID finds its stream and event. */
export type ReplayedEventIds = Map<string, ReplayedEvent>;

type RecordedIds = NonNullable<Framing['ids']>;

/**
 * SSE event ids for one replayed stream: the ids the server sent in the recording, as the server sent them — unless
 * one of them was given already in this session (the entry plays a second time), where ids of its own
 * (`<stream id>_<n>`) keep every id the session gave naming one event. A message recorded without an id gets one.
 */
export class EventIds {
  readonly stream = randomUUID();
  private n = 0;
  last?: string;
  /** the ids given, so the session forgets them with the stream */
  readonly given: string[] = [];
  private readonly recorded?: RecordedIds;

  constructor(
    private readonly index: ReplayedEventIds,
    /** messages in the recorded stream: `at` = this length is the answer */
    private readonly streamLength: number,
    recorded: RecordedIds | undefined,
  ) {
    if (recorded && !idsOf(recorded).some((id) => index.has(id))) this.recorded = recorded;
  }

  /** the id of the event carrying recorded message `at` (-1: the priming event; the stream's length: the answer) */
  next(at = -1): string {
    const id = this.recordedId(at) ?? `${this.stream}_${this.n++}`;
    if (!this.index.has(id)) this.given.push(id);
    this.index.set(id, { stream: this.stream, at });
    this.last = id;
    return id;
  }

  /** forgets the ids this stream gave (it is no longer kept for resumption) */
  forget(): void {
    for (const id of this.given) this.index.delete(id);
  }

  private recordedId(at: number): string | undefined {
    const r = this.recorded;
    if (!r) return undefined;
    if (at < 0) return r.priming;
    if (at >= this.streamLength) return r.answer;
    return r.stream?.[at] ?? undefined;
  }
}

function idsOf(recorded: RecordedIds): string[] {
  const ids = [recorded.priming, ...(recorded.stream ?? []), recorded.answer];
  return ids.filter((id): id is string => typeof id === 'string');
}
