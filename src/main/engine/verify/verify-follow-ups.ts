import type { CassetteEntry } from '../../../shared/cassette/entry.js';
import { changeLine, diffValues } from '../../../shared/json-diff.js';
import { omitFields, type FieldPattern } from '../../../shared/json-path.js';
import { canonicalJson, FOLLOW_UP_PREFIX } from '../cassette/keys.js';

/**
 * What `verify` does with the `after_<key>` entries: what the server sent on its GET stream after an exchange
 * (notifications, and requests to the client such as roots/list after connect). They are not requests to send
 * again: verify's session answers the live server's same requests with the recorded client replies, and after the
 * exchange they followed it waits for the live server to send the same messages (method and params, `--ignore-fields`
 * left out). One that does not come, or comes changed, is drift with its JSON path; a message the live server sends
 * that was not recorded is not (servers send logs and updates on their own clock).
 */

/** How long verify waits, after an exchange, for what followed it on the recorded GET stream. */
export const FOLLOW_UP_WAIT_MS = 3000;

export const isFollowUpKey = (key: string): boolean => key.startsWith(FOLLOW_UP_PREFIX);

/** The streams of the follow-ups, in recorded order: the client's replies to the server's requests among them. */
export function followUpStream(
  followUps: ReadonlyArray<{ entries: readonly CassetteEntry[] }>,
): Array<Record<string, unknown>> {
  return followUps.flatMap((g) => g.entries.flatMap((e) => (e.stream ?? []) as Array<Record<string, unknown>>));
}

export interface FollowUpVerdict {
  status: 'ok' | 'drift' | 'skipped';
  reason?: string;
  changes?: string[];
}

interface Doc {
  method: string;
  params: unknown;
}

const docOf = (m: { method?: unknown; params?: unknown }, patterns: readonly FieldPattern[]): Doc =>
  omitFields({ method: String(m.method), params: m.params ?? {} }, patterns) as Doc;

/**
 * Waits (at most `waitMs`) until the live server sent, after the exchange `after`, each message recorded after its
 * first answer (verify sends a request once: what followed a later answer is not looked for). `live` hands out what
 * the live server sent since it was last called.
 */
export async function checkFollowUps(
  entries: readonly CassetteEntry[],
  after: string,
  live: () => ReadonlyArray<Record<string, unknown>>,
  patterns: readonly FieldPattern[],
  waitMs = FOLLOW_UP_WAIT_MS,
): Promise<FollowUpVerdict> {
  const expected = entries.filter((e) => (e.afterCall ?? 1) === 1).map((e) => docOf(e, patterns));
  if (!expected.length)
    return { status: 'skipped', reason: `followed a later answer of ${after} (verify sends each request once)` };
  // each live message matches one expected message; what is left unmatched on both sides is the drift
  const missing = expected.map((doc) => ({ doc, text: canonicalJson(doc) }));
  const extra: Doc[] = [];
  const deadline = performance.now() + waitMs;
  for (;;) {
    for (const doc of live().map((m) => docOf(m, patterns))) {
      const text = canonicalJson(doc);
      const at = missing.findIndex((m) => m.text === text);
      if (at >= 0) missing.splice(at, 1);
      else extra.push(doc);
    }
    if (!missing.length || performance.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  if (!missing.length) return { status: 'ok' };
  return {
    status: 'drift',
    reason: `what the server sent after ${after} on its GET stream changed`,
    changes: describe(
      missing.map((m) => m.doc),
      extra,
    ),
  };
}

/** Each missing message against a live one of the same method (its changed values), else as not sent. */
function describe(missing: readonly Doc[], extra: Doc[]): string[] {
  return missing.flatMap((doc) => {
    const at = extra.findIndex((s) => s.method === doc.method);
    if (at < 0) return [`${doc.method}: recorded, not sent by the live server`];
    const [counterpart] = extra.splice(at, 1);
    return diffValues(doc, counterpart).map((c) => `${doc.method} ${changeLine(c)}`);
  });
}
