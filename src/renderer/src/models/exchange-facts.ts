import type { TrafficEvent } from '../../../shared/api.js';
import { finalLabel, finalOf } from '../../../shared/traffic.js';

/**
 * What an exchange is, in the words the timeline uses: its status, who answered, whether something changed it, what
 * it weighs, and its search text. Pure (no React, no I/O); the table, the detail and the filter language share them.
 */

export type StatusKind = 'ok' | 'tool error' | 'error' | 'pending' | 'held';

/** an exchange, or a call held at a breakpoint (a pending row of the table) */
export type ExchangeLike = TrafficEvent & { pausedId?: string };

export function statusKind(e: ExchangeLike): StatusKind {
  if (e.pausedId) return 'held';
  const r = e.response as { error?: { code: number }; result?: { isError?: boolean } } | undefined;
  // ended without an answer the client took: refused, cancelled, the client gone, cut by a limit
  if (finalLabel(e) !== undefined) return 'error';
  if (!r) return finalOf(e) ? 'error' : 'pending';
  if (r.error) return 'error';
  return r.result?.isError ? 'tool error' : 'ok';
}

/** ok / tool error / error <JSON-RPC code> / HTTP 404, cancelled, client gone, timed out / pending */
export function statusLabel(e: ExchangeLike): string {
  const kind = statusKind(e);
  if (kind === 'held') return '‖ held';
  if (kind !== 'error') return kind;
  const ended = finalLabel(e);
  if (ended !== undefined || !e.response) return ended ?? 'error';
  return `error ${(e.response as { error: { code: number } }).error.code}`;
}

/** the JSON-RPC error code of the answer, if it is an error */
export function errorCode(e: TrafficEvent): number | undefined {
  const error = (e.response as { error?: { code?: unknown } } | undefined)?.error;
  return typeof error?.code === 'number' ? error.code : undefined;
}

/** upstream / cache / proxy, and the rule that changed the answer: "upstream · inject" */
export function sourceLabel(e: TrafficEvent): string {
  return e.behavior && e.behavior !== 'relay' ? `${e.source} · ${e.behavior}` : e.source;
}

/** Who answered, in the words of the detail's overview: upstream, cassette, rule (override / inject), breakpoint, proxy. */
export function sourceKind(e: TrafficEvent): string {
  const at = e.source === 'cache' ? 'cassette' : e.source;
  if (e.flags?.some((f) => f.includes('at a breakpoint'))) return `${at} · edited at a breakpoint`;
  if (e.behavior === 'override') return 'rule (override)';
  if (e.behavior === 'inject') return `${at} · rule (inject)`;
  return at;
}

/** A rule or a breakpoint changed what the client sent or got. */
export const isChanged = (e: TrafficEvent): boolean =>
  e.original !== undefined || e.behavior === 'override' || e.behavior === 'inject';

/** The exchange failed somehow: a JSON-RPC error, a tool error (isError) or an HTTP error from the upstream. */
export function failed(e: TrafficEvent): boolean {
  const kind = statusKind(e);
  return kind === 'error' || kind === 'tool error' || (e.http?.status ?? 0) >= 400;
}

export interface ExchangeSizes {
  /** the request's JSON, in UTF-8 bytes (its full size when the timeline truncated it) */
  request: number;
  /** the answer's JSON, 0 while pending */
  response: number;
  /** the streamed messages' JSON */
  stream: number;
  total: number;
}

const sizes = new WeakMap<TrafficEvent, ExchangeSizes>();

/** A string's length in UTF-8 bytes, counted in place (no encoded copy of a body of megabytes). */
export function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4; // a surrogate pair: one code point above U+FFFF
      i++;
    } else bytes += 3; // the rest of the BMP, and a lone surrogate (encoded as U+FFFD)
  }
  return bytes;
}

const jsonBytes = (value: unknown): number => (value === undefined ? 0 : utf8Bytes(JSON.stringify(value) ?? ''));

/** What an exchange weighs, by part: computed once per exchange (events are immutable), full sizes where truncated. */
export function exchangeSizes(e: TrafficEvent): ExchangeSizes {
  let found = sizes.get(e);
  if (!found) {
    const request = e.truncated?.request ?? jsonBytes(e.request);
    const response = e.truncated?.response ?? jsonBytes(e.response);
    const stream = e.truncated?.stream ?? (e.stream.length ? jsonBytes(e.stream) : 0);
    found = { request, response, stream, total: request + response + stream };
    sizes.set(e, found);
  }
  return found;
}

/** 950 B, 12.3 kB, 4.8 MB (1 kB = 1,024 bytes, as the larger-than filter counts them) */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(n < 10 * 1024 ? 1 : 0)} kB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** request + response + stream as lower-case JSON, computed once per exchange (events are immutable) */
const haystacks = new WeakMap<TrafficEvent, string>();
export function haystack(e: TrafficEvent): string {
  let text = haystacks.get(e);
  if (text === undefined) {
    text =
      `${e.method}\n${e.tool ?? ''}\n${e.key}\n${JSON.stringify(e.request)}\n${JSON.stringify(e.response ?? null)}\n${JSON.stringify(e.stream)}`.toLowerCase();
    haystacks.set(e, text);
  }
  return text;
}

/**
 * Builds the search text of the exchanges ahead of time, in idle slices, so that the first search over 100,000 of
 * them costs what a second one does (a few ms per 2,000 exchanges, never a long task). Call it with the current list
 * whenever it changes; a newer list replaces the one being warmed.
 */
let warming: { list: TrafficEvent[]; at: number } | undefined;
export function warmSearch(list: TrafficEvent[]): void {
  const idle = (globalThis as { requestIdleCallback?: (cb: (deadline: { timeRemaining(): number }) => void) => number })
    .requestIdleCallback;
  const running = warming !== undefined;
  warming = { list, at: warming?.list === list ? warming.at : 0 };
  if (running || !idle) return;
  const slice = (deadline: { timeRemaining(): number }): void => {
    const job = warming;
    if (!job) return;
    while (job.at < job.list.length && deadline.timeRemaining() > 2) {
      const end = Math.min(job.list.length, job.at + 500);
      for (; job.at < end; job.at++) haystack(job.list[job.at]);
    }
    if (job.at < job.list.length) idle(slice);
    else warming = undefined;
  };
  idle(slice);
}
