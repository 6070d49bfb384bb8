import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { CLIENT_IDS } from '../../shared/intercept.js';
import { parseJson } from '../../shared/json-depth.js';
import { writeFileAtomic } from '../api/files/atomic-file.js';

/**
 * What mcp-rewind changed in clients' config files: `<data folder>/intercept.json` (owner-only), one record per
 * wrapped server, written before the config file itself, so `unwrap --all` finds every change — after a crash of the
 * app too. A record holds what undoes its change exactly: the file's hash after the change, and the bytes it replaced.
 */
export const LEDGER_FILE = 'intercept.json';

const TransportSchema = z.union([
  z.object({
    kind: z.literal('stdio'),
    command: z.string(),
    args: z.array(z.string()),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().optional(),
  }),
  z.object({
    kind: z.literal('http'),
    url: z.string(),
    headers: z.record(z.string(), z.string()).optional(),
    sse: z.boolean().optional(),
  }),
]);

const RecordSchema = z.strictObject({
  target: z.string(),
  client: z.enum(CLIENT_IDS),
  file: z.string(),
  format: z.enum(['json', 'jsonc', 'toml']),
  /** where the entry is in the file */
  path: z.array(z.string()),
  original: TransportSchema,
  /** the keys changed: their source text before (null: there was none) and after */
  keys: z.array(z.strictObject({ key: z.string(), before: z.string().nullable(), after: z.string() })),
  beforeHash: z.string(),
  afterHash: z.string(),
  /** the change undone, one span per key changed (last first): text[start, end) of the file after it becomes `text` */
  reverse: z.array(z.strictObject({ start: z.number().int().min(0), end: z.number().int().min(0), text: z.string() })),
  backup: z.string().optional(),
  /** an HTTP server's proxy in the app */
  proxy: z.strictObject({ id: z.string().optional(), port: z.number().int() }).optional(),
  at: z.string(),
});
export type LedgerRecord = z.infer<typeof RecordSchema>;

const LedgerSchema = z.strictObject({ version: z.literal(1), records: z.array(RecordSchema) });

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

type Span = LedgerRecord['reverse'][number];

/** What turns `after` back into `before`: the one span they differ in (one value changed). */
export function reversePatch(before: string, after: string): Span {
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let tail = 0;
  while (
    tail < before.length - start &&
    tail < after.length - start &&
    before[before.length - 1 - tail] === after[after.length - 1 - tail]
  )
    tail++;
  return { start, end: after.length - tail, text: before.slice(start, before.length - tail) };
}

/** Undoes the spans of a change, the last one first. */
export const applyReverse = (text: string, reverse: readonly Span[]): string =>
  reverse.reduceRight((t, span) => t.slice(0, span.start) + span.text + t.slice(span.end), text);

export class Ledger {
  readonly file: string;

  constructor(dataDir: string) {
    this.file = join(dataDir, LEDGER_FILE);
  }

  /** The records as they are on disk now (another process may have changed them); a bad file is an error, never dropped. */
  read(): LedgerRecord[] {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new Error(`cannot read ${this.file}: ${(error as Error).message}`, { cause: error });
    }
    const parsed = LedgerSchema.safeParse(parseJson(text));
    if (!parsed.success)
      throw new Error(
        `${this.file} is not a record of mcp-rewind's changes (left as it is): ${parsed.error.issues[0]?.message}`,
      );
    return parsed.data.records;
  }

  async write(records: LedgerRecord[]): Promise<void> {
    await writeFileAtomic(this.file, `${JSON.stringify({ version: 1, records }, null, 2)}\n`);
  }

  async add(records: LedgerRecord[]): Promise<void> {
    if (records.length) await this.write([...this.read(), ...records]);
  }

  async remove(done: readonly LedgerRecord[]): Promise<void> {
    if (!done.length) return;
    const gone = new Set(done.map((r) => `${r.file}\0${r.afterHash}\0${r.target}`));
    await this.write(this.read().filter((r) => !gone.has(`${r.file}\0${r.afterHash}\0${r.target}`)));
  }
}
