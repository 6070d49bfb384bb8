import type { CassetteEntry } from '../../../../shared/cassette/entry.js';
import type { Log } from '../../log.js';
import type { RecordedDebug } from '../recorded-request.js';

/** The HTTP detail of a recorded exchange (the folder's debug files). */
export interface DebugFiles {
  request: { method: string; url: string; headers: Record<string, string | string[]>; body: unknown };
  responseBody: string;
  responseHead: { status: number; headers: Record<string, string | string[]> };
}

/** One recorded exchange as a persister stores it. */
export interface PersistedExchange {
  n: number;
  /** undefined for mcp-rewind's key-less debug files */
  key?: string;
  /** the distilled entry, as written to `<n> <key>.json` */
  distilled?: Record<string, unknown>;
  /** the parsed entry (when `distilled` is one) */
  entry?: CassetteEntry;
  debug?: DebugFiles | RecordedDebug;
  /** when it was written, where the format does not say (file mtime) */
  mtime?: Date;
}

/**
 * Where a cassette lives, in the spirit of Polly.js's persisters: a folder in mcp-rewind's layout (read and
 * written, watched for hand edits), a single JSON file (read, and written by export) or HAR 1.2 (written by export).
 * The store indexes what a persister loads; recording appends through it.
 */
export interface Persister {
  readonly format: 'folder' | 'single-file' | 'har';
  /** the folder or file */
  readonly location: string;
  /** can recording append to it? */
  readonly writable: boolean;
  /** every distilled entry; a broken one is logged and left out, never fatal */
  load(log: Log): Promise<CassetteEntry[]>;
  /** adds an exchange: debug files first, the distilled entry last (the commit point), each written atomically */
  append(exchange: PersistedExchange): Promise<void>;
}
