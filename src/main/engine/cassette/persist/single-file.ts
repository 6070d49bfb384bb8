import { readFile } from 'node:fs/promises';
import { parseDistilled, type CassetteEntry } from '../../../../shared/cassette/entry.js';
import type { Log } from '../../log.js';
import { entryFileName } from '../names.js';
import type { PersistedExchange, Persister } from './persister.js';

/** the `format` of a single-file cassette (`mcp-rewind export --out`), which `--cache FILE` replays read-only */
export const SINGLE_FILE_FORMAT = 'mcp-rewind-cassette';
export const READ_ONLY_MESSAGE = 'a single-file cassette is read-only: record into a folder';

export interface SingleFileCassette {
  format: typeof SINGLE_FILE_FORMAT;
  version: 1;
  exportedAt: string;
  /** each distilled file, verbatim, with its sequence number and key */
  entries: Array<{ n: number; key: string; entry: unknown }>;
}

/**
 * A cassette as one JSON file: `{ format: "mcp-rewind-cassette", version: 1, entries: [{ n, key, entry }] }`. Read
 * (replay: `--cache FILE`), and written by export, which appends every exchange and then takes the document.
 */
export class SingleFilePersister implements Persister {
  readonly format = 'single-file' as const;
  readonly writable = false;
  private readonly appended: SingleFileCassette['entries'] = [];

  constructor(readonly location: string) {}

  async load(log: Log): Promise<CassetteEntry[]> {
    let data: { format?: unknown; version?: unknown; entries?: unknown };
    try {
      data = JSON.parse(await readFile(this.location, 'utf8')) as typeof data;
    } catch (error) {
      throw new Error(`cassette ${this.location}: not a readable JSON file: ${(error as Error).message}`, { cause: error });
    }
    if (data?.format !== SINGLE_FILE_FORMAT || data.version !== 1 || !Array.isArray(data.entries)) {
      throw new Error(`cassette ${this.location}: not a single-file cassette (expected format "${SINGLE_FILE_FORMAT}", version 1)`);
    }
    const entries: CassetteEntry[] = [];
    for (const [i, item] of (data.entries as Array<{ n?: unknown; key?: unknown; entry?: unknown }>).entries()) {
      const n = Number(item?.n);
      const key = item?.key;
      if (!Number.isInteger(n) || n < 1 || typeof key !== 'string' || key === '') {
        log(`cassette: ignoring entries[${i}] of ${this.location}: needs a positive integer n and a key`, 'warn');
        continue;
      }
      try {
        entries.push(parseDistilled(n, key, entryFileName(n, key), item.entry));
      } catch (error) {
        log(`cassette: ignoring entries[${i}] (${key}) of ${this.location}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`, 'warn');
      }
    }
    return entries;
  }

  /** Export: collects an exchange's distilled entry (debug files have no place in this format). */
  async append(exchange: PersistedExchange): Promise<void> {
    if (exchange.key === undefined || exchange.distilled === undefined) return;
    this.appended.push({ n: exchange.n, key: exchange.key, entry: exchange.distilled });
  }

  /** The document of everything appended, in recorded order. */
  document(now: Date): SingleFileCassette {
    const entries = [...this.appended].sort((a, b) => a.n - b.n);
    return { format: SINGLE_FILE_FORMAT, version: 1, exportedAt: now.toISOString(), entries };
  }
}
