import { lstat, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { silent, type Log } from '../log.js';
import { debugFileNames, parseCassetteName, stemOf } from './names.js';
import { HarPersister, type Har } from './persist/har.js';
import type { PersistedExchange, Persister } from './persist/persister.js';
import { SingleFilePersister, type SingleFileCassette } from './persist/single-file.js';
import { entriesByKey, readDebugFiles } from './recorded-request.js';
import { REDACTED, redactHeaders } from './redact.js';
import { readCassetteFile, UnsafeEntryError } from './safe-read.js';
import { CassetteStore } from './store.js';

export type { Har } from './persist/har.js';

/**
 * `mcp-rewind export`: a cassette folder as one JSON file (which `--cache FILE` replays read-only), or as HAR 1.2
 * built from the debug files. Secrets were redacted at record time; both exports redact again, defensively.
 */

/** Header-like keys redacted wherever they appear in an exported entry (distilled files should hold none). */
const SECRET_KEY = /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|api-key|x-auth-token|x-access-token|mcp-session-id|x-mimcp-session)$/i;

/** A copy with every `headers` object redacted (redact.ts's rules) and every authorization/cookie-like key replaced. */
export function redactDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactDeep);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (SECRET_KEY.test(k)) out[k] = REDACTED;
    else if (k.toLowerCase() === 'headers' && v !== null && typeof v === 'object' && !Array.isArray(v)) out[k] = redactHeaders(v as Record<string, string | string[]>);
    else out[k] = redactDeep(v);
  }
  return out;
}

const isFile = (path: string): Promise<boolean> => stat(path).then((s) => s.isFile(), () => false);

export interface ExportOptions {
  now?: Date;
  /** warnings: entries refused (symbolic links, unreadable files) */
  log?: Log;
}

/**
 * Every recorded exchange of a cassette (a folder or a single file), in recorded order, into `sink` — the export of
 * one persister into another. A folder's key-less debug files (mcp-rewind's notifications, uncached requests) are
 * exchanges too, for the formats that keep them (HAR).
 */
async function copyInto(path: string, sink: Persister, options: ExportOptions & { debug: boolean }): Promise<void> {
  const log: Log = options.log ?? silent;
  const store = await CassetteStore.open(path, { watch: false, log });
  store.close();
  const folder = !(await isFile(path));
  const exchanges = new Map<string, PersistedExchange>();
  for (const [key, list] of entriesByKey(store)) {
    for (const entry of list) {
      let distilled: Record<string, unknown> | undefined;
      if (folder) {
        try {
          distilled = JSON.parse(await readCassetteFile(path, entry.file)) as Record<string, unknown>; // verbatim
        } catch (error) {
          if (!(error instanceof UnsafeEntryError)) throw error;
          log(`cassette: ${error.message}`, 'warn'); // replaced by a link since the store read it
          continue;
        }
      }
      exchanges.set(stemOf(entry.n, key), { n: entry.n, key, entry, distilled });
    }
  }
  if (folder) {
    if (options.debug) {
      for (const name of await readdir(path)) {
        const parsed = parseCassetteName(name);
        if (parsed && parsed.kind !== 'entry' && !exchanges.has(parsed.stem)) exchanges.set(parsed.stem, { n: parsed.n, key: parsed.key });
      }
      for (const [stem, x] of exchanges) {
        x.debug = await readDebugFiles(path, stem, options.log);
        x.mtime = await lstat(join(path, x.entry?.file ?? debugFileNames(stem)[0])).then((s) => s.mtime, () => undefined);
      }
    }
  } else {
    // a single file given instead: its entries verbatim
    const data = JSON.parse(await readFile(path, 'utf8')) as SingleFileCassette;
    for (const item of data.entries) {
      const x = exchanges.get(stemOf(item.n, item.key));
      if (x) x.distilled = item.entry as Record<string, unknown>;
    }
  }
  for (const x of [...exchanges.values()].sort((a, b) => a.n - b.n)) await sink.append(x);
}

/** The single-file form of a cassette folder (a single file given instead is re-stamped and redacted again). */
export async function exportSingleFile(path: string, options: ExportOptions = {}): Promise<SingleFileCassette> {
  const sink = new SingleFilePersister('(export)');
  await copyInto(path, sink, { ...options, debug: false });
  const document = sink.document(options.now ?? new Date());
  return { ...document, entries: document.entries.map((e) => ({ ...e, entry: redactDeep(e.entry) })) };
}

/** HAR 1.2 of a cassette: one entry per recorded exchange, in recorded order. */
export async function exportHar(path: string, options: ExportOptions & { creatorVersion?: string } = {}): Promise<Har> {
  const sink = new HarPersister('(export)');
  await copyInto(path, sink, { ...options, debug: true });
  return sink.document({ creatorVersion: options.creatorVersion, now: options.now });
}
