import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import type { SaveResult, TrafficEvent } from '../../../shared/api.js';
import { distilledFor } from '../../../shared/cassette/distilled-write.js';
import type { JsonRpcResponse } from '../../../shared/jsonrpc.js';
import { finalOf } from '../../../shared/traffic.js';
import { redactDeep, toFile } from '../../engine/cassette/export.js';
import { harEntry, harHeaders, HarWriter, type HarEntry } from '../../engine/cassette/persist/har.js';
import type { DebugFiles } from '../../engine/cassette/persist/persister.js';
import { buildResultHasher } from '../../engine/cassette/hash.js';
import { canonicalJson } from '../../engine/cassette/keys.js';
import { redactHeaders, redactUrl, REDACTED } from '../../engine/redact.js';
import { CassetteStore, type NewEntry } from '../../engine/cassette/store.js';
import { fileKey } from '../../engine/cassette/safe-name.js';
import { SINGLE_FILE_FORMAT, type SingleFileCassette } from '../../engine/cassette/persist/single-file.js';
import { writeAtomic } from '../../engine/fs/atomic-write.js';
import { pathInside } from '../../engine/fs/inside-folder.js';
import { countRedacted } from '../cassettes/export-files.js';
import { sseEvent } from '../../engine/http/sse.js';

/**
 * `traffic.save`: timeline exchanges (all, the filtered ones, a selection) as HAR 1.2, a cassette folder or a
 * single-file cassette. The cassette is what recording would have written — the source's answer (before a rule
 * rewrote it), errors left out, identical answers once — so replaying it with the same rules gives the same
 * traffic; the HAR is what the client got, on the wire. Secrets are redacted with the engine's rules (headers, the
 * session id, credential-like keys, secret-looking URL parameters).
 */

export interface SaveRequest {
  format: 'har' | 'folder' | 'file';
  out: string;
  overwrite?: boolean;
  cwd?: string;
  /** the proxy's endpoint for each exchange (HAR request URLs); a read-only source has none */
  urlOf: (event: TrafficEvent) => string | undefined;
  /** notes on exchanges, kept as HAR comments */
  noteOf?: (seq: number) => string | undefined;
  version?: string;
}

const NUMBERED = /^\d+[ .].*\.json$/;
const hashResult = buildResultHasher();

async function checkOut(req: SaveRequest): Promise<string> {
  const typed = req.out.trim();
  if (!typed) throw new Error('out: give a path to save to');
  if (typed.includes('\0')) throw new Error('out: the path contains a NUL character');
  const out = resolve(req.cwd ?? process.cwd(), typed);
  const existing = await stat(out).catch(() => undefined);
  if (req.format === 'folder') {
    if (existing && !existing.isDirectory())
      throw new Error(`out: ${out} is a file; a cassette folder needs a folder path`);
    if (existing && (await readdir(out)).length > 0 && !req.overwrite)
      throw new Error(`out: the folder ${out} exists and is not empty; set overwrite to replace its cassette files`);
  } else {
    if (existing?.isDirectory())
      throw new Error(
        `out: ${out} is a folder; ${req.format === 'har' ? 'a HAR' : 'a single-file cassette'} needs a file path`,
      );
    if (existing && !req.overwrite) throw new Error(`out: the file ${out} exists; set overwrite to replace it`);
  }
  return out;
}

/** The HTTP body the client got: SSE when the server streamed messages before its answer, else JSON. */
function responseBody(
  event: TrafficEvent,
  response: JsonRpcResponse | undefined = event.response,
): { text: string; mimeType: string } {
  if (!response) return { text: '', mimeType: 'application/json' };
  if (event.stream.length === 0 && !String(event.http?.headers['content-type'] ?? '').includes('event-stream'))
    return { text: JSON.stringify(response), mimeType: 'application/json' };
  return { text: [...event.stream, response].map((m) => sseEvent(m)).join(''), mimeType: 'text/event-stream' };
}

function harEntryOf(event: TrafficEvent, req: SaveRequest): HarEntry {
  const requestText = JSON.stringify(event.request);
  const requestHeaders = [
    { name: 'content-type', value: 'application/json' },
    { name: 'accept', value: 'application/json, text/event-stream' },
    ...(event.sessionId ? [{ name: 'mcp-session-id', value: REDACTED }] : []),
    ...(event.protocolVersion ? [{ name: 'mcp-protocol-version', value: event.protocolVersion }] : []),
  ];
  const body = responseBody(event);
  // no answer (refused at the HTTP level, cancelled, the client gone): the HTTP status if there was one, else 0 — as
  // browsers write an aborted request — and why, in `_error`
  const final = finalOf(event);
  const t = event.timing;
  const send = t?.sentUpstream ?? 0;
  const wait = t?.firstByte !== undefined ? Math.max(0, t.firstByte - send) : 0;
  return harEntry({
    startedDateTime: new Date(event.startedAt).toISOString(),
    time: event.durationMs,
    request: {
      method: 'POST',
      url: redactUrl(req.urlOf(event) ?? 'http://localhost/mcp'),
      headers: requestHeaders,
      queryString: [],
      body: { mimeType: 'application/json', text: requestText },
    },
    response: {
      status: event.http?.status ?? (event.response ? 200 : 0),
      headers: event.http ? harHeaders(event.http.headers) : [{ name: 'content-type', value: body.mimeType }],
      mimeType: body.mimeType,
      text: body.text,
      ...(!event.response && event.finalReason ? { error: event.finalReason } : {}),
    },
    timings: { send, wait, receive: Math.max(0, event.durationMs - send - wait) },
    comment: req.noteOf?.(event.seq),
    meta: { n: event.seq, key: event.key, synthetic: event.http === undefined, ...(final ? { final } : {}) },
  });
}

interface Distilled {
  method: string;
  key: string;
  entry: NewEntry;
  debug: DebugFiles;
}

/** What recording would store for an exchange: the source's answer (before a rule changed it); errors are not replayed. */
function distill(event: TrafficEvent, req: SaveRequest): Distilled | string {
  const response = event.original?.response ?? event.response;
  if (!response)
    return `#${event.seq} ${event.method}: no answer (${event.finalReason ?? finalOf(event) ?? 'in flight'})`;
  if (!('result' in response)) return `#${event.seq} ${event.method}: an error answer (errors are not replayed)`;
  const { request } = event;
  const isToolCall = request.method === 'tools/call';
  const { _meta, ...params } = request.params ?? {};
  const body = responseBody(event, response);
  return {
    method: request.method,
    key: event.key,
    entry: {
      result: response.result,
      resultHash: isToolCall ? hashResult(response.result) : undefined,
      name: isToolCall ? String(request.params?.name ?? '') : undefined,
      arguments: isToolCall ? (request.params?.arguments ?? {}) : undefined,
      method: request.method,
      params: isToolCall ? undefined : params,
      recordedAt: new Date(event.startedAt).toISOString(),
      stream: event.stream.length ? event.stream.map((m) => m as unknown as Record<string, unknown>) : undefined,
    },
    debug: {
      request: {
        method: 'POST',
        url: redactUrl(req.urlOf(event) ?? 'http://localhost/mcp'),
        headers: { 'content-type': 'application/json', ...(event.sessionId ? { 'mcp-session-id': REDACTED } : {}) },
        body: request,
      },
      responseBody: body.text,
      responseHead: {
        status: event.http?.status ?? 200,
        headers: event.http ? redactHeaders(event.http.headers) : { 'content-type': body.mimeType },
      },
    },
  };
}

/** The exchanges a cassette keeps: one per key and identical answer, in timeline order. */
function cassetteOf(events: TrafficEvent[], req: SaveRequest): { kept: Distilled[]; skipped: string[] } {
  const kept: Distilled[] = [];
  const skipped: string[] = [];
  const seen = new Set<string>();
  for (const event of events) {
    const d = distill(event, req);
    if (typeof d === 'string') {
      skipped.push(d);
      continue;
    }
    const id = `${d.key}\u0000${canonicalJson(d.entry.result)}\u0000${canonicalJson(d.entry.stream ?? [])}`;
    if (seen.has(id)) continue; // the same answer twice replays the same as once
    seen.add(id);
    kept.push(d);
  }
  return { kept, skipped };
}

/** The single-file cassette of the kept exchanges (numbered in order, keys made file-name safe), as one document. */
function singleFileOf(kept: Distilled[]): SingleFileCassette {
  const entries = kept.map((d, i) => ({
    n: i + 1,
    key: fileKey(d.key),
    entry: distilledFor(d.method, redactDeep(d.entry) as NewEntry),
  }));
  return { format: SINGLE_FILE_FORMAT, version: 1, exportedAt: new Date().toISOString(), entries };
}

/** The folder form: every entry through the store (the one place keys become file names), debug files written before it answers. */
async function saveFolder(out: string, kept: Distilled[]): Promise<{ written: string[]; redacted: number }> {
  const existing = await readdir(out).catch(() => [] as string[]);
  for (const name of existing) if (NUMBERED.test(name)) await rm(pathInside(out, name), { force: true }); // overwrite was allowed
  await mkdir(out, { recursive: true });
  const store = await CassetteStore.open(out, { watch: false });
  const written: string[] = [];
  let redacted = 0;
  try {
    for (const d of kept) {
      const entry = redactDeep(d.entry) as NewEntry;
      redacted += countRedacted(entry);
      written.push(pathInside(out, (await store.add(d.method, d.key, entry, redactDeep(d.debug) as DebugFiles)).file));
    }
    await store.flush();
  } finally {
    store.close();
  }
  return { written, redacted };
}

export async function saveTraffic(events: TrafficEvent[], req: SaveRequest): Promise<SaveResult> {
  const out = await checkOut(req);
  const ordered = [...events].sort((a, b) => a.startedAt - b.startedAt || a.seq - b.seq);
  if (req.format === 'har') {
    const ended = ordered.filter((e) => finalOf(e) !== undefined); // every exchange that ended, answered or not
    await mkdir(dirname(out), { recursive: true });
    const { redacted } = await toFile(out, async (file) => {
      const har = new HarWriter(file, req.version);
      let count = 0;
      await har.begin();
      for (const e of ended) {
        const entry = redactDeep(harEntryOf(e, req)) as HarEntry;
        count += countRedacted(entry);
        await har.add(entry);
      }
      await har.end();
      return { redacted: count };
    });
    const skipped = ordered.filter((e) => finalOf(e) === undefined).map((e) => `#${e.seq} ${e.method}: no answer yet`);
    return { out, written: [out], exchanges: ended.length, skipped, redacted };
  }
  const { kept, skipped } = cassetteOf(ordered, req);
  if (req.format === 'folder') return { out, ...(await saveFolder(out, kept)), exchanges: kept.length, skipped };
  // a single file: written at once, beside nothing (no temporary folder next to it)
  const cassette = singleFileOf(kept);
  await mkdir(dirname(out), { recursive: true });
  await writeAtomic(dirname(out), basename(out), `${JSON.stringify(cassette, null, 2)}\n`);
  return { out, written: [out], exchanges: kept.length, skipped, redacted: countRedacted(cassette.entries) };
}
