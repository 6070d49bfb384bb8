import { readFile } from 'node:fs/promises';
import type { Log } from '../../log.js';
import { entryFileName } from '../names.js';
import { fileKey } from '../safe-name.js';
import { jsonItem } from './json-stream.js';
import type { EntryName, PersistedExchange, Persister, ReadEntry, Sink } from './persister.js';
import { parseJson } from '../../../../shared/json-depth.js';

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
 * (replay: `--cache FILE`; the file is parsed once, its entries kept as parsed), and written by export as a stream
 * into a sink: `append` writes each exchange's item as it comes, `end` closes the document — the same text as
 * `JSON.stringify(document, null, 2)`, without ever holding it.
 */
export class SingleFilePersister implements Persister {
  readonly format = 'single-file' as const;
  readonly writable = false;
  private readonly entries = new Map<string, unknown>();
  private written = 0;

  constructor(
    readonly location: string,
    private readonly sink?: Sink,
  ) {}

  async scan(log: Log): Promise<EntryName[]> {
    let data: { format?: unknown; version?: unknown; entries?: unknown };
    try {
      data = parseJson(await readFile(this.location, 'utf8')) as typeof data;
    } catch (error) {
      throw new Error(`cassette ${this.location}: not a readable JSON file: ${(error as Error).message}`, {
        cause: error,
      });
    }
    if (data?.format !== SINGLE_FILE_FORMAT || data.version !== 1 || !Array.isArray(data.entries)) {
      throw new Error(
        `cassette ${this.location}: not a single-file cassette (expected format "${SINGLE_FILE_FORMAT}", version 1)`,
      );
    }
    const names: EntryName[] = [];
    for (const [i, item] of (data.entries as Array<{ n?: unknown; key?: unknown; entry?: unknown }>).entries()) {
      const n = Number(item?.n);
      const key = item?.key;
      if (!Number.isInteger(n) || n < 1 || typeof key !== 'string' || key === '') {
        log(`cassette: ignoring entries[${i}] of ${this.location}: needs a positive integer n and a key`, 'warn');
        continue;
      }
      const safe = fileKey(key); // it names files once saved as a folder: indexed under its safe form, said so
      if (safe !== key)
        log(
          `cassette: entries[${i}] of ${this.location}: key ${JSON.stringify(key)} is not a safe file name; read as "${safe}"`,
          'warn',
        );
      const file = entryFileName(n, safe);
      this.entries.set(file, item.entry);
      names.push({ n, key: safe, file, loose: undefined });
    }
    return names;
  }

  read(file: string): ReadEntry | 'gone' {
    return this.entries.has(file) ? { data: this.entries.get(file), bytes: 0 } : 'gone';
  }

  /** Export: writes an exchange's distilled entry (debug files have no place in this format); in recorded order. */
  async append(exchange: PersistedExchange): Promise<void> {
    if (exchange.key === undefined || exchange.distilled === undefined) return;
    if (!this.sink) throw new Error(READ_ONLY_MESSAGE);
    await this.sink.write(
      jsonItem(this.written++ === 0, 2, { n: exchange.n, key: exchange.key, entry: exchange.distilled }),
    );
  }

  /** Export: the document's head, written before the first append. */
  async begin(now: Date): Promise<void> {
    await this.sink?.write(
      `{\n  "format": ${JSON.stringify(SINGLE_FILE_FORMAT)},\n  "version": 1,\n  "exportedAt": ${JSON.stringify(now.toISOString())},\n  "entries": [`,
    );
  }

  /** Export: closes the document; answers how many entries it holds. */
  async end(): Promise<number> {
    await this.sink?.write(this.written ? '\n  ]\n}\n' : ']\n}\n');
    return this.written;
  }
}
