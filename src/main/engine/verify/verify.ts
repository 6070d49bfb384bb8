import type { CassetteEntry } from '../../../shared/cassette/entry.js';
import { parseFieldPattern, type FieldPattern } from '../../../shared/json-path.js';
import { conditionOf, isModernRevision } from '../../../shared/mcp-protocol.js';
import type { Log } from '../log.js';
import { buildResultHasher, type ResultHashOptions } from '../cassette/hash.js';
import { followUpKey, looseKeyFor } from '../cassette/keys.js';
import { stemOf } from '../cassette/names.js';
import {
  entriesByKey,
  readDebugFiles,
  recordedRequest,
  requestInBody,
  requestMetaInBody,
  type RecordedRequest,
} from '../cassette/recorded-request.js';
import { redactUrl } from '../redact.js';
import { CassetteStore } from '../cassette/store.js';
import { buildNormaliser, compareAnswers } from '../cassette/verify-compare.js';
import { checkFollowUps, followUpStream, isFollowUpKey } from './verify-follow-ups.js';
import { LiveServer, type LiveServerOptions } from './verify-live.js';
import type { ModernEnvelope } from './verify-modern.js';
import type { LiveAnswer } from './verify-session.js';
import { rerecordDrifted, type Rerecord, type UpdateReport } from './verify-update.js';
import type { UpstreamAuth } from '../upstream/oauth/challenge.js';

/**
 * `mcp-rewind verify`: sends every recorded request again to the live server, in the revision it was recorded in (a
 * 2025 session of its own, or stateless 2026-07-28 requests with their `_meta`), and reports drift per key with each
 * changed value and its JSON path (verify-compare.ts: every method, normalised alike). initialize is not re-sent: its
 * serverInfo and protocolVersion are compared with the live session's and reported as information. With `update`,
 * the drifted entries are recorded again in place (verify-update.ts).
 */

export type VerifyStatus = 'ok' | 'drift' | 'info' | 'skipped';

export interface KeyVerdict {
  key: string;
  method: string;
  status: VerifyStatus;
  /** a short reason (drift, info, skipped) */
  reason?: string;
  /** drift: each changed value with its JSON path (`$.result.content[0].text: "a" → "b"`) */
  changes?: string[];
  /** the 2026-07-28 revision the entries were recorded and verified in (undefined: a 2025 revision) */
  revision?: string;
  durationMs: number;
}

export interface VerifyReport {
  /** the live server, credentials redacted */
  upstream: string;
  results: KeyVerdict[];
  counts: Record<VerifyStatus, number>;
  drift: boolean;
  /** `update`: what was recorded again, and where the old files are */
  updated?: UpdateReport;
}

export interface VerifyOptions {
  /** an open store, or a cassette folder (or single file) to open */
  store?: CassetteStore;
  dir?: string;
  upstreamUrl?: string;
  /** how the report names the live server (default: upstreamUrl, credentials redacted) */
  upstreamLabel?: string;
  /** extra headers on every request to the live server */
  upstreamHeaders?: Record<string, string>;
  /** the live server's OAuth sign-in (the stored one: verify uses its token and refreshes it, never opens a browser) */
  upstreamAuth?: UpstreamAuth;
  hashOptions?: ResultHashOptions;
  /** dot paths into the request params (e.g. `arguments.timestamp`) that do not tell recorded requests apart */
  matchIgnore?: string[];
  /** field patterns (json-path.ts) left out of every comparison, at any depth: `**.timestamp` */
  ignoreFields?: string[];
  /** record the drifted entries again, in place (a folder cassette), the old ones kept in a backup folder */
  update?: boolean;
  timeoutMs?: number;
  /** warnings (entries refused on load, e.g. symbolic links) */
  log?: Log;
  /** a live session of another kind (e.g. stdio) for the 2025 revisions; overrides upstreamUrl for them */
  openSession?: LiveServerOptions['openSession'];
  /** the server is a command bridged onto Streamable HTTP (the bridge opens sessions: 2026-07-28 entries are skipped) */
  command?: boolean;
}

/** The entries of one key recorded in one revision: one verdict. */
interface Target {
  key: string;
  /** undefined: the 2025 revisions (verify's session) */
  revision?: string;
  entries: readonly CassetteEntry[];
  request: RecordedRequest | { unknown: string };
  /** 2026-07-28: the recorded request's `_meta` */
  envelope?: ModernEnvelope;
}

function pushTo<K, V>(map: Map<K, V[]>, key: K, values: readonly V[]): void {
  const list = map.get(key);
  if (list) list.push(...values);
  else map.set(key, [...values]);
}

const revisionOf = (e: CassetteEntry): string | undefined =>
  e.protocolVersion !== undefined && isModernRevision(e.protocolVersion) ? e.protocolVersion : undefined;

export async function verifyCassette(options: VerifyOptions): Promise<VerifyReport> {
  const store =
    options.store ?? (await CassetteStore.open(options.dir ?? './cache', { watch: false, log: options.log }));
  try {
    return await run(store, options);
  } finally {
    if (!options.store) store.close();
  }
}

/** Each key's entries split by revision, with the request to send and, for 2026-07-28, its recorded envelope. */
async function targetsOf(
  store: CassetteStore,
  log?: Log,
): Promise<{ targets: Target[]; initializeParams?: Record<string, unknown> }> {
  const targets: Target[] = [];
  let initializeParams: Record<string, unknown> | undefined;
  for (const [key, all] of entriesByKey(store)) {
    const byRevision = new Map<string | undefined, CassetteEntry[]>();
    for (const e of all) pushTo(byRevision, revisionOf(e), [e]);
    for (const [revision, entries] of byRevision) {
      const debug = await readDebugFiles(store.dir, stemOf(entries[0].n, entries[0].key), log);
      const body = debug?.request?.body;
      targets.push({
        key,
        revision,
        entries,
        request: recordedRequest(entries[0], body),
        envelope: revision ? requestMetaInBody(body) : undefined,
      });
      if (key === 'initialize') initializeParams = requestInBody(body, 'initialize')?.params;
    }
  }
  // a 2026-07-28 entry without its .req.json speaks for the client as the cassette's other requests did
  const envelope = targets.find((t) => t.envelope)?.envelope;
  for (const t of targets) if (t.revision && !t.envelope) t.envelope = envelope;
  return { targets, initializeParams };
}

async function run(store: CassetteStore, options: VerifyOptions): Promise<VerifyReport> {
  const { targets: all, initializeParams } = await targetsOf(store, options.log);
  // what followed an exchange on the GET stream is looked for after it, not sent (verify-follow-ups.ts)
  const targets = all.filter((t) => !isFollowUpKey(t.key));
  const followUps = new Map(all.filter((t) => isFollowUpKey(t.key)).map((t) => [t.key, t]));
  // requests that differ only in --match-ignore paths (and key order) share their recorded answers, per revision
  const candidateKey = (t: Target, r: RecordedRequest): string =>
    `${t.revision ?? ''} ${looseKeyFor(r.method, r.params, options.matchIgnore)}`;
  const candidates = new Map<string, CassetteEntry[]>();
  for (const t of targets) if (!('unknown' in t.request)) pushTo(candidates, candidateKey(t, t.request), t.entries);
  const ignoreFields = (options.ignoreFields ?? []).map(parseFieldPattern);
  const normalise = buildNormaliser({ hashOptions: options.hashOptions, ignoreFields });
  const display = options.upstreamLabel ?? (options.upstreamUrl ? redactUrl(options.upstreamUrl) : 'the live server');
  const live = new LiveServer({
    ...options,
    display,
    initializeParams,
    followUps: followUpStream([...followUps.values()]),
  });
  const results: KeyVerdict[] = [];
  const drifted: Rerecord[] = [];
  try {
    for (const t of targets) {
      const started = performance.now();
      const { verdict, answer } = await verifyTarget(
        t,
        live,
        (r) => candidates.get(candidateKey(t, r)) ?? t.entries,
        normalise,
      );
      results.push({
        key: t.key,
        ...verdict,
        ...(t.revision ? { revision: t.revision } : {}),
        durationMs: performance.now() - started,
      });
      if (verdict.status === 'drift' && answer && !('unknown' in t.request) && reRecordable(answer))
        drifted.push({ method: t.request.method, request: t.request, entries: t.entries, live: answer });
      const after =
        t.revision === undefined && verdict.status !== 'skipped' ? followUps.get(followUpKey(t.key)) : undefined;
      if (after) {
        followUps.delete(after.key);
        results.push(await followUpResult(after, t.key, live, answer, ignoreFields));
      }
    }
    for (const t of followUps.values()) results.push(notFollowed(t));
  } finally {
    await live.close();
  }
  const counts: Record<VerifyStatus, number> = { ok: 0, drift: 0, info: 0, skipped: 0 };
  for (const r of results) counts[r.status]++;
  const updated = options.update
    ? await rerecordDrifted(store.dir, drifted, buildResultHasher(options.hashOptions))
    : undefined;
  return { upstream: display, results, counts, drift: counts.drift > 0, ...(updated ? { updated } : {}) };
}

const methodsOf = (t: Target): string => [...new Set(t.entries.map((e) => e.method ?? '?'))].join(', ');

/** The verdict of what followed the exchange `base` on the recorded GET stream, against what the live server sent. */
async function followUpResult(
  t: Target,
  base: string,
  live: LiveServer,
  answer: LiveAnswer | undefined,
  ignoreFields: readonly FieldPattern[],
): Promise<KeyVerdict> {
  const started = performance.now();
  const session = await live.legacy();
  const first = (answer?.stream ?? []).filter((m) => 'method' in m); // it may come while the exchange is open
  const sent = (): ReadonlyArray<Record<string, unknown>> => [...first.splice(0), ...(session.takeOutside?.() ?? [])];
  const verdict = await checkFollowUps(t.entries, base, sent, ignoreFields);
  return { key: t.key, method: methodsOf(t), ...verdict, durationMs: performance.now() - started };
}

/** A follow-up of an exchange verify did not make (skipped, or of a 2026-07-28 revision: no GET stream). */
const notFollowed = (t: Target): KeyVerdict => ({
  key: t.key,
  method: methodsOf(t),
  status: 'skipped',
  reason: 'what the server sent on its GET stream after an exchange verify does not send again',
  durationMs: 0,
});

/** An answer that depended on verify's own headers or capabilities is not recorded over the entry. */
const reRecordable = (answer: LiveAnswer): boolean =>
  !('error' in answer.response) || conditionOf(answer.response.error) === undefined;

type Verdict = Omit<KeyVerdict, 'key' | 'durationMs' | 'revision'>;

async function verifyTarget(
  t: Target,
  live: LiveServer,
  candidatesOf: (r: RecordedRequest) => readonly CassetteEntry[],
  normalise: ReturnType<typeof buildNormaliser>,
): Promise<{ verdict: Verdict; answer?: LiveAnswer }> {
  const unsent = notSentAgain(t, live);
  if (unsent) return { verdict: { method: unsent.method, status: 'skipped', reason: unsent.reason } };
  const request = t.request as RecordedRequest;
  if (request.method === 'initialize') {
    const change = describeInitChange(t.entries[t.entries.length - 1].result, (await live.legacy()).initializeResult);
    return { verdict: { method: 'initialize', status: change ? 'info' : 'ok', reason: change } };
  }
  const stream = t.entries.flatMap((e) => e.stream ?? []);
  let answer: LiveAnswer;
  try {
    answer = await live.send(t.revision, t.envelope, {
      ...request,
      recordedStream: stream,
      progress: stream.some((m) => m.method === 'notifications/progress'),
    });
  } catch (error) {
    if ((error as Error).name === 'UnreachableError') throw error;
    return { verdict: { method: request.method, status: 'drift', reason: `no answer: ${(error as Error).message}` } };
  }
  // an error matches a recorded error of the same code and message; a result, a recorded result (normalised)
  return {
    verdict: {
      method: request.method,
      ...compareAnswers(request.method, candidatesOf(request), answer.response, normalise),
    },
    answer,
  };
}

/**
 * Why some entries are not sent again: a refusal of a whole POST, an answer that depended on the request's headers or
 * envelope, a later round of a multi-round call (its state was the server's, for one user), a subscription stream, a
 * server notification (nothing to send), a request that cannot be told, a 2026-07-28 entry with no URL to send it to.
 */
function notSentAgain(t: Target, live: LiveServer): { method: string; reason: string } | undefined {
  const e = t.entries[0];
  const method = 'unknown' in t.request ? (e.method ?? '?') : t.request.method;
  const skip = (reason: string): { method: string; reason: string } => ({ method, reason });
  if (e.refusal) return skip('a refusal of a whole request (HTTP level), not a request');
  if ('unknown' in t.request) return { method: e.method ?? '?', reason: `cannot send again: ${t.request.unknown}` };
  if (method.startsWith('notifications/')) return skip('a server notification, not a request'); // filed after an exchange (GET stream)
  if (t.entries.every((x) => conditionOf(x.error) !== undefined))
    return skip("an answer that depended on the request's headers, revision or capabilities");
  if (e.requestState !== undefined || e.inputResponses !== undefined)
    return skip('a later round of a multi-round call');
  if (method === 'subscriptions/listen') return skip('a subscription stream');
  if (t.revision && !live.speaksModern)
    return skip(`a ${t.revision} exchange: verify sends those to a URL (--url), not to a command`);
  return undefined;
}

function describeInitChange(recorded: Record<string, unknown>, live: Record<string, unknown>): string | undefined {
  const info = (r: Record<string, unknown>): string => {
    const s = (r.serverInfo ?? {}) as { name?: unknown; version?: unknown };
    return `${String(s.name)} ${String(s.version)}`;
  };
  const changes: string[] = [];
  if (info(recorded) !== info(live)) changes.push(`serverInfo ${info(recorded)} → ${info(live)}`);
  if (recorded.protocolVersion !== live.protocolVersion)
    changes.push(`protocolVersion ${String(recorded.protocolVersion)} → ${String(live.protocolVersion)}`);
  return changes.length ? changes.join('; ') : undefined;
}
