import type { Session } from '../core/session.js';

/** Where a message the server sent on its GET stream is filed: after which exchange, and after its how-manieth answer. */
export interface FollowUpPlace {
  key: string;
  /** 1 for the session's first answer of `key`, 2 for its second, … */
  afterCall: number;
}

/**
 * The recorder's view of each session's calls, so a GET-stream message keeps its place among them: filed under the
 * call in flight when it came (the latest one sent — it came while that call ran), else under the last one answered,
 * and with which answer of that key it followed, so replay sends it once, after the same answer (a repeated call does
 * not send it again).
 */
export class FollowUpPlaces {
  private readonly last = new WeakMap<Session, string>();
  private readonly answers = new WeakMap<Session, Map<string, number>>();

  answered(session: Session, key: string): void {
    this.last.set(session, key);
    let counts = this.answers.get(session);
    if (!counts) this.answers.set(session, (counts = new Map()));
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }

  placeOf(session: Session): FollowUpPlace {
    let running: string | undefined;
    for (const exchange of session.inFlight.values()) if (!exchange.response) running = exchange.key;
    const key = running ?? this.last.get(session) ?? 'initialize';
    const answered = this.answers.get(session)?.get(key) ?? 0;
    return { key, afterCall: running !== undefined ? answered + 1 : Math.max(answered, 1) };
  }
}
