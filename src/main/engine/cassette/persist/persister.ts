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

/** An entry as the index knows it before reading it: its name. */
export interface EntryName {
  n: number;
  key: string;
  /** `<n> <key>.json` */
  file: string;
  /** room for the index's loose key (present from the start: an object whose shape never changes stays small) */
  loose?: string;
}

/** An entry's content as read: the distilled JSON as parsed (not yet checked) and its size on disk. */
export interface ReadEntry {
  data: unknown;
  bytes: number;
}

/** Where an appended exchange's write stands. */
export interface AppendOptions {
  /** fsync before resolving (default true): a resolved append survives a power loss */
  durable?: boolean;
}

/** Where pieces of an export go, in order (a file written as a stream, or a string collected in memory). */
export interface Sink {
  write(piece: string): Promise<void>;
}

/**
 * Where a cassette lives, in the spirit of Polly.js's persisters: a folder in mcp-rewind's layout (read and
 * written, watched for hand edits), a single JSON file (read, and written by export) or HAR 1.2 (written by export).
 * Reading is in two steps, so that a cassette of any size is indexed in seconds: `scan` lists the entries by name,
 * `read` reads one when it is first used. Recording and export append through `append`.
 */
export interface Persister {
  readonly format: 'folder' | 'single-file' | 'har';
  /** the folder or file */
  readonly location: string;
  /** can recording append to it? */
  readonly writable: boolean;
  /** every distilled entry by name; a refused one (a symbolic link…) is logged and left out, never fatal */
  scan(log: Log): Promise<EntryName[]>;
  /** one entry's content: 'gone' (deleted, refused, unparsable: logged; drop it) or undefined (unreadable now) */
  read(file: string, log: Log): ReadEntry | 'gone' | undefined;
  /** adds an exchange; resolves once its distilled entry — the commit point — is written */
  append(exchange: PersistedExchange, options?: AppendOptions): Promise<void>;
}
