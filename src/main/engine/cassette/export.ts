import { lstat, readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { parseDistilled } from '../../../shared/cassette/entry.js';
import { openAtomicStream } from '../fs/atomic-write.js';
import { silent, type Log } from '../log.js';
import { debugFileNames, parseCassetteName } from './names.js';
import { HarPersister, type Har } from './persist/har.js';
import { StringSink } from './persist/json-stream.js';
import type { PersistedExchange, Sink } from './persist/persister.js';
import { SingleFilePersister, type SingleFileCassette } from './persist/single-file.js';
import { readDebugFilesSync } from './recorded-request.js';
import { REDACTED, redactHeaders, redactUrl } from '../redact.js';
import { jsonErrorMessage, readCassetteFileSync, UnsafeEntryError } from './safe-read.js';
import { parseJson } from '../../../shared/json-depth.js';
import { setOwn } from '../../../shared/own.js';

export type { Har } from './persist/har.js';

/**
 * `mcp-rewind export`: a cassette folder as one JSON file (which `--cache FILE` replays read-only), or as HAR 1.2
 * built from the debug files. Secrets were redacted at record time; both exports redact again, defensively. Exports
 * stream: one exchange is read, converted and written at a time, so memory does not grow with the cassette (a
 * 300,000-entry cassette, a 512 MB HAR).
 */

/** Header-like keys redacted wherever they appear in an exported entry (distilled files should hold none). */
const SECRET_KEY =
  /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|api-key|x-auth-token|x-access-token|mcp-session-id|x-mimcp-session)$/i;

/** A copy with every `headers` object redacted (redact.ts's rules) and every authorization/cookie-like key replaced. */
export function redactDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactDeep);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (SECRET_KEY.test(k)) out[k] = REDACTED;
    else if (k.toLowerCase() === 'headers' && v !== null && typeof v === 'object' && !Array.isArray(v))
      out[k] = redactHeaders(v as Record<string, string | string[]>);
    else setOwn(out, k, redactDeep(v)); // `__proto__` too stays a key of the copy
  }
  return out;
}

const isFile = (path: string): Promise<boolean> =>
  stat(path).then(
    (s) => s.isFile(),
    () => false,
  );

export interface ExportOptions {
  now?: Date;
  /** warnings: entries refused (symbolic links, unreadable files) */
  log?: Log;
  /** sees each exported item as written (the single file's redacted entry, the HAR entry): the app counts redactions */
  inspect?: (item: unknown) => void;
}

/** One exchange of a folder, as listed: its number, its distilled file if any, which debug files exist. */
interface Listed {
  n: number;
  /** `<n> <key>` (or `<n>`) */
  stem: string;
  /** which of its files exist: ENTRY, and the debug files' bits (DEBUG_BITS) */
  files: number;
}

const ENTRY = 1;
const DEBUG_BITS: Record<string, number> = { req: 2, res: 4, 'res-head': 8 };
/** the debug files a listing showed, as readDebugFilesSync takes them */
const debugPresent = (files: number): Set<string> =>
  new Set(Object.keys(DEBUG_BITS).filter((kind) => files & DEBUG_BITS[kind]));

/** exports read files synchronously (faster by far), yielding this often so that a running app keeps serving */
const SLICE_MS = 20;

/** The folder's exchanges by name, in recorded order (names only: about 200 bytes each, what an export holds). */
async function listFolder(path: string, debug: boolean): Promise<Listed[]> {
  const byStem = new Map<string, Listed>();
  for (const name of await readdir(path)) {
    const parsed = parseCassetteName(name);
    if (!parsed || (!debug && parsed.kind !== 'entry')) continue;
    let listed = byStem.get(parsed.stem);
    if (!listed) byStem.set(parsed.stem, (listed = { n: parsed.n, stem: parsed.stem, files: 0 }));
    listed.files |= parsed.kind === 'entry' ? ENTRY : DEBUG_BITS[parsed.kind];
  }
  return [...byStem.values()].sort((a, b) => a.n - b.n || (a.stem < b.stem ? -1 : a.stem > b.stem ? 1 : 0));
}

/**
 * Every recorded exchange of a cassette (a folder or a single file), in recorded order, one at a time — the export of
 * one persister into another. A folder's key-less debug files (mcp-rewind's notifications, uncached requests) are
 * exchanges too, for the formats that keep them (`debug`: HAR). Entries that are links or broken are reported and
 * left out (a refused entry's debug files still count, as debug files).
 */
async function* exchangesOf(path: string, options: { debug: boolean; log: Log }): AsyncGenerator<PersistedExchange> {
  const { log } = options;
  if (await isFile(path)) {
    const file = new SingleFilePersister(path);
    for (const name of (await file.scan(log)).sort((a, b) => a.n - b.n)) {
      const read = file.read(name.file);
      if (read === 'gone') continue;
      try {
        const entry = parseDistilled(name.n, name.key, name.file, read.data);
        yield { n: name.n, key: name.key, entry, distilled: read.data as Record<string, unknown> };
      } catch (error) {
        log(`cassette: ignoring ${name.key} of ${path}: ${jsonErrorMessage(error)}`, 'warn');
      }
    }
    return;
  }
  let slice = performance.now();
  for (const listed of await listFolder(path, options.debug)) {
    if (performance.now() - slice > SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      slice = performance.now();
    }
    const key = parseCassetteName(`${listed.stem}.req.json`)?.key;
    const x: PersistedExchange = { n: listed.n, key };
    if (listed.files & ENTRY) {
      const entryFile = `${listed.stem}.json`;
      try {
        const distilled = parseJson(readCassetteFileSync(path, entryFile)) as Record<string, unknown>; // verbatim
        x.entry = parseDistilled(listed.n, key as string, entryFile, distilled);
        x.distilled = distilled;
      } catch (error) {
        if (error instanceof UnsafeEntryError) log(`cassette: ${error.message}`, 'warn');
        else if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
          log(`cassette: ignoring ${entryFile}: ${jsonErrorMessage(error)}`, 'warn');
        if (!options.debug) continue;
      }
    }
    if (options.debug) {
      x.debug =
        listed.files & ~ENTRY ? readDebugFilesSync(path, listed.stem, debugPresent(listed.files), log) : undefined;
      if (!x.entry && !x.debug) continue;
      // a date for the HAR entry where the distilled entry holds none
      if (!x.entry?.recordedAt)
        x.mtime = await lstat(join(path, x.entry?.file ?? debugFileNames(listed.stem)[0])).then(
          (s) => s.mtime,
          () => undefined,
        );
    }
    yield x;
  }
}

const REQUEST_ONLY = new Set(['req']);

/** The URL of the first recorded request that has an absolute one: where the HAR's rebuilt requests were sent. */
async function firstRecordedUrl(path: string): Promise<string> {
  if (!(await isFile(path))) {
    for (const listed of await listFolder(path, true)) {
      if (!(listed.files & DEBUG_BITS.req)) continue;
      const url = readDebugFilesSync(path, listed.stem, REQUEST_ONLY, silent)?.request?.url;
      if (url !== undefined && URL.canParse(url)) return redactUrl(url);
    }
  }
  return 'http://localhost/mcp';
}

/** The single-file form of a cassette, written into a sink piece by piece (a single file given instead is re-stamped and redacted again). */
export async function exportSingleFileTo(
  path: string,
  sink: Sink,
  options: ExportOptions = {},
): Promise<{ entries: number }> {
  const out = new SingleFilePersister('(export)', sink);
  await out.begin(options.now ?? new Date());
  for await (const x of exchangesOf(path, { debug: false, log: options.log ?? silent })) {
    const distilled = redactDeep(x.distilled) as Record<string, unknown>;
    options.inspect?.(distilled);
    await out.append({ ...x, distilled });
  }
  return { entries: await out.end() };
}

/** HAR 1.2 of a cassette, written into a sink piece by piece: one entry per recorded exchange, in recorded order. */
export async function exportHarTo(
  path: string,
  sink: Sink,
  options: ExportOptions & { creatorVersion?: string } = {},
): Promise<{ entries: number; synthetic: number }> {
  const log = options.log ?? silent;
  const out = new HarPersister('(export)', sink, {
    creatorVersion: options.creatorVersion,
    now: options.now,
    fallbackUrl: await firstRecordedUrl(path),
    inspect: options.inspect,
  });
  await out.begin();
  for await (const x of exchangesOf(path, { debug: true, log })) await out.append(x);
  return out.end();
}

/** Writes an export to `file` as a stream, replacing it atomically once complete; answers its size in bytes. */
export async function toFile<T extends object>(
  file: string,
  write: (sink: Sink) => Promise<T>,
): Promise<T & { bytes: number }> {
  const stream = await openAtomicStream(dirname(file), basename(file));
  try {
    const result = await write(stream);
    await stream.commit();
    return { ...result, bytes: stream.bytes };
  } catch (error) {
    await stream.abort();
    throw error;
  }
}

export const writeSingleFileExport = (
  path: string,
  file: string,
  options: ExportOptions = {},
): Promise<{ entries: number; bytes: number }> => toFile(file, (sink) => exportSingleFileTo(path, sink, options));

export const writeHarExport = (
  path: string,
  file: string,
  options: ExportOptions & { creatorVersion?: string } = {},
): Promise<{ entries: number; synthetic: number; bytes: number }> =>
  toFile(file, (sink) => exportHarTo(path, sink, options));

/** The single-file form of a cassette, in memory (small cassettes; files are written with writeSingleFileExport). */
export async function exportSingleFile(path: string, options: ExportOptions = {}): Promise<SingleFileCassette> {
  const sink = new StringSink();
  await exportSingleFileTo(path, sink, options);
  return JSON.parse(sink.text) as SingleFileCassette;
}

/** HAR 1.2 of a cassette, in memory (small cassettes; files are written with writeHarExport). */
export async function exportHar(path: string, options: ExportOptions & { creatorVersion?: string } = {}): Promise<Har> {
  const sink = new StringSink();
  await exportHarTo(path, sink, options);
  return JSON.parse(sink.text) as Har;
}
