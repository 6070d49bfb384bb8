import type { CassetteEntry } from '../../../shared/cassette/entry.js';
import { buildResultHasher, hash16, type ResultHashOptions } from './hash.js';
import { canonicalJson, looseKeyFor } from './keys.js';
import { entriesByKey, readDebugFiles, recordedRequest, requestInBody, type RecordedRequest } from './recorded-request.js';
import { redactUrl } from './redact.js';
import { CassetteStore } from './store.js';
import { openHttpSession, type LiveSession } from './verify-session.js';
import type { Log } from '../log.js';
import { UnreachableError } from '../errors.js';
import { stemOf } from './names.js';
import { conditionOf, isModernRevision } from '../../../shared/mcp-protocol.js';
import type { UpstreamAuth } from '../upstream/oauth/challenge.js';

/**
 * `mcp-rewind verify`: sends every recorded request again to the live server, on a session of its own, and reports
 * drift per key — a tool result none of the key's recorded results matches (by result hash), tools added, removed
 * or changed in tools/list, any other result that differs. initialize is not re-sent: its serverInfo and
 * protocolVersion are compared with the recorded ones and reported as information.
 */

export type VerifyStatus = 'ok' | 'drift' | 'info' | 'skipped';

export interface KeyVerdict {
  key: string;
  method: string;
  status: VerifyStatus;
  /** a short reason (drift, info, skipped) */
  reason?: string;
  durationMs: number;
}

export interface VerifyReport {
  /** the live server, credentials redacted */
  upstream: string;
  results: KeyVerdict[];
  counts: Record<VerifyStatus, number>;
  drift: boolean;
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
  timeoutMs?: number;
  /** warnings (entries refused on load, e.g. symbolic links) */
  log?: Log;
  /** a live session of another kind (e.g. stdio); overrides upstreamUrl */
  openSession?: (initializeParams: Record<string, unknown> | undefined) => Promise<LiveSession>;
}

type Tool = { name: string; description?: unknown; inputSchema?: unknown; outputSchema?: unknown };

/** tools/list drift: names added, removed, and tools whose description or schemas differ. */
export function diffTools(recorded: unknown, live: unknown): string | undefined {
  const toMap = (list: unknown): Map<string, Tool> => new Map((Array.isArray(list) ? (list as Tool[]) : []).map((t) => [String(t.name), t]));
  const before = toMap(recorded);
  const after = toMap(live);
  const added = [...after.keys()].filter((n) => !before.has(n));
  const removed = [...before.keys()].filter((n) => !after.has(n));
  const changed: string[] = [];
  for (const [name, tool] of before) {
    const now = after.get(name);
    if (!now) continue;
    const fields = (['description', 'inputSchema', 'outputSchema'] as const).filter((f) => canonicalJson(tool[f] ?? null) !== canonicalJson(now[f] ?? null));
    if (fields.length) changed.push(`${name} (${fields.join(', ')})`);
  }
  const parts = [
    removed.length && `removed: ${removed.join(', ')}`,
    added.length && `added: ${added.join(', ')}`,
    changed.length && `changed: ${changed.join(', ')}`,
  ].filter(Boolean);
  return parts.length ? `tools ${parts.join('; ')}` : undefined;
}

function describeInitChange(recorded: Record<string, unknown>, live: Record<string, unknown>): string | undefined {
  const info = (r: Record<string, unknown>): string => {
    const s = (r.serverInfo ?? {}) as { name?: unknown; version?: unknown };
    return `${String(s.name)} ${String(s.version)}`;
  };
  const changes: string[] = [];
  if (info(recorded) !== info(live)) changes.push(`serverInfo ${info(recorded)} → ${info(live)}`);
  if (recorded.protocolVersion !== live.protocolVersion) changes.push(`protocolVersion ${String(recorded.protocolVersion)} → ${String(live.protocolVersion)}`);
  return changes.length ? changes.join('; ') : undefined;
}

export async function verifyCassette(options: VerifyOptions): Promise<VerifyReport> {
  const store = options.store ?? (await CassetteStore.open(options.dir ?? './cache', { watch: false, log: options.log }));
  try {
    return await run(store, options);
  } finally {
    if (!options.store) store.close();
  }
}

async function run(store: CassetteStore, options: VerifyOptions): Promise<VerifyReport> {
  const hasher = buildResultHasher(options.hashOptions);
  const groups = entriesByKey(store);
  const requests = new Map<string, RecordedRequest | { unknown: string }>();
  const streams = new Map<string, ReadonlyArray<Record<string, unknown>>>();
  let initializeParams: Record<string, unknown> | undefined;
  for (const [key, entries] of groups) {
    const first = entries[0];
    const debug = await readDebugFiles(store.dir, stemOf(first.n, first.key), options.log);
    requests.set(key, recordedRequest(first, debug?.request?.body));
    streams.set(
      key,
      entries.flatMap((e) => e.stream ?? []),
    );
    if (key === 'initialize') initializeParams = requestInBody(debug?.request?.body, 'initialize')?.params;
  }

  // tools/call entries whose requests differ only in --match-ignore paths share their recorded results
  const matchKey = (r: RecordedRequest): string => looseKeyFor(r.method, r.params, options.matchIgnore);
  const resultHashes = new Map<string, Set<string>>();
  for (const [key, entries] of groups) {
    const request = requests.get(key);
    if (!request || 'unknown' in request) continue;
    const set = resultHashes.get(matchKey(request)) ?? new Set<string>();
    for (const e of entries) {
      if (e.error) continue;
      set.add(hasher(e.result));
      if (e.resultHash) set.add(e.resultHash);
    }
    resultHashes.set(matchKey(request), set);
  }

  const display = options.upstreamLabel ?? (options.upstreamUrl ? redactUrl(options.upstreamUrl) : 'the live server');
  let session: LiveSession;
  try {
    session = options.openSession
      ? await options.openSession(initializeParams)
      : await openHttpSession(options.upstreamUrl ?? '', {
          initializeParams,
          headers: options.upstreamHeaders,
          timeoutMs: options.timeoutMs,
          auth: options.upstreamAuth,
        });
  } catch (error) {
    throw new UnreachableError(`${display} did not answer an MCP initialize: ${(error as Error).message}`);
  }

  const results: KeyVerdict[] = [];
  try {
    for (const [key, entries] of groups) {
      const started = performance.now();
      const request = requests.get(key) as RecordedRequest | { unknown: string };
      const verdict = (method: string, status: VerifyStatus, reason?: string): void =>
        void results.push({ key, method, status, reason, durationMs: performance.now() - started });
      const unsent = notSentAgain(entries);
      if (unsent) {
        verdict(entries[0].method ?? '?', 'skipped', unsent);
        continue;
      }
      if ('unknown' in request) {
        verdict('?', 'skipped', `cannot send again: ${request.unknown}`);
        continue;
      }
      if (request.method.startsWith('notifications/')) {
        // a server notification filed after an exchange (GET stream): nothing to send, the server sends it by itself
        verdict(request.method, 'skipped', 'a server notification, not a request');
        continue;
      }
      if (request.method === 'initialize') {
        const change = describeInitChange(entries[entries.length - 1].result, session.initializeResult);
        verdict('initialize', change ? 'info' : 'ok', change);
        continue;
      }
      let answer;
      try {
        answer = await session.send(request.method, request.params, streams.get(key));
      } catch (error) {
        verdict(request.method, 'drift', `no answer: ${(error as Error).message}`);
        continue;
      }
      if ('error' in answer) {
        // a recorded error answered again alike is no drift (code and message)
        const same = entries.some((e) => e.error && e.error.code === answer.error.code && e.error.message === answer.error.message);
        verdict(request.method, same ? 'ok' : 'drift', same ? undefined : `the server answered error ${answer.error.code}: ${answer.error.message}`);
        continue;
      }
      if (entries.every((e) => e.error)) {
        verdict(request.method, 'drift', `the server answers a result where it answered error ${entries[0].error?.code}: ${entries[0].error?.message}`);
        continue;
      }
      verdict(request.method, ...compare(request, entries, answer.result, resultHashes.get(matchKey(request)), hasher));
    }
  } finally {
    await session.close().catch(() => {});
  }
  const counts: Record<VerifyStatus, number> = { ok: 0, drift: 0, info: 0, skipped: 0 };
  for (const r of results) counts[r.status]++;
  return { upstream: display, results, counts, drift: counts.drift > 0 };
}

/**
 * Why some entries are not sent again on verify's own 2025-era session: a refusal of a whole POST, an exchange of
 * 2026-07-28 (its answer depends on that revision), an answer that depended on the request's headers or envelope, a
 * later round of a multi-round call (its state was the server's, for one user), a subscription stream.
 */
function notSentAgain(entries: readonly CassetteEntry[]): string | undefined {
  const e = entries[0];
  if (e.refusal) return 'a refusal of a whole request (HTTP level), not a request';
  if (e.protocolVersion !== undefined && isModernRevision(e.protocolVersion)) return `a ${e.protocolVersion} exchange: verify speaks the 2025 revisions`;
  if (entries.every((x) => conditionOf(x.error) !== undefined)) return "an answer that depended on the request's headers, revision or capabilities";
  if (e.requestState !== undefined || e.inputResponses !== undefined) return 'a later round of a multi-round call';
  if (e.method === 'subscriptions/listen') return 'a subscription stream';
  return undefined;
}

function compare(
  request: RecordedRequest,
  entries: readonly CassetteEntry[],
  live: Record<string, unknown>,
  hashes: Set<string> | undefined,
  hasher: (r: unknown) => string,
): [VerifyStatus, string?] {
  if (request.method === 'tools/call') {
    const liveHash = hasher(live);
    if (hashes?.has(liveHash)) return ['ok'];
    const recorded = [...(hashes ?? [])].slice(0, 3).join(', ');
    const error = live.isError === true && !entries.some((e) => e.result.isError === true) ? ' (now an error result)' : '';
    return ['drift', `result changed${error}: hash ${liveHash} matches no recorded result (${recorded})`];
  }
  const last = entries[entries.length - 1].result;
  if (request.method === 'tools/list') {
    const diff = diffTools(last.tools, live.tools);
    return diff ? ['drift', diff] : ['ok'];
  }
  if (entries.some((e) => canonicalJson(e.result) === canonicalJson(live))) return ['ok'];
  return ['drift', `result changed: hash ${hash16(canonicalJson(live))} ≠ recorded ${hash16(canonicalJson(last))}`];
}
