import { readFileSync, renameSync } from 'node:fs';
import { basename } from 'node:path';
import type { z } from 'zod';
import { describeZodError } from '../../../shared/rules/schema.js';
import { writeFileAtomic } from './atomic-file.js';
import { parseJson } from '../../../shared/json-depth.js';

/**
 * A JSON file of the app's data folder holding state that must survive a restart (workspace.json, timeline.json):
 * checked with its zod schema when read, written atomically and owner-only, changes in one burst saved once. An
 * unusable file never stops the app: it is kept as `<name>.bad` and reported, and the state starts empty.
 */
export class StateFile<S extends z.ZodType> {
  private writes: Promise<unknown> = Promise.resolve();
  private queued?: z.output<S>;
  private timer?: NodeJS.Timeout;

  constructor(
    readonly file: string,
    private readonly schema: S,
    /** what is lost when the file is unusable, for the report ("no proxies restored") */
    private readonly lost: string,
    private readonly log: (line: string) => void,
  ) {}

  /** The saved state, or undefined when there is no file or it is unusable (then moved aside and reported). */
  load(): z.output<S> | undefined {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
        this.log(`cannot read ${this.file}: ${(error as Error).message}; ${this.lost}`);
      return undefined;
    }
    let why: string;
    try {
      const parsed = this.schema.safeParse(parseJson(text));
      if (parsed.success) return parsed.data;
      why = describeZodError(parsed.error);
    } catch (error) {
      why = `not JSON (${(error as Error).message})`;
    }
    try {
      renameSync(this.file, `${this.file}.bad`);
      why += `; it was kept as ${basename(this.file)}.bad`;
    } catch {
      /* left where it is */
    }
    this.log(`${this.file} was not usable: ${why}; ${this.lost}`);
    return undefined;
  }

  /** Saves soon (changes in one burst make one write). */
  save(state: z.output<S>): void {
    this.queued = state;
    this.timer ??= setTimeout(() => void this.flush(), 50);
  }

  /**
   * Writes `state` now, after any write under way (what was queued is superseded); rejects when it could not be
   * written (a full disk), so that the caller can say so — the file then still holds what it held.
   */
  async saveNow(state: z.output<S>): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.queued = undefined;
    const text = `${JSON.stringify(state, null, 2)}\n`;
    const write = this.writes.then(() => writeFileAtomic(this.file, text));
    this.writes = write.catch(() => {});
    await write;
  }

  /** Writes what is queued now; resolves when every write so far is on disk. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const state = this.queued;
    this.queued = undefined;
    if (state !== undefined) {
      const text = `${JSON.stringify(state, null, 2)}\n`;
      this.writes = this.writes
        .then(() => writeFileAtomic(this.file, text))
        .catch((error: Error) => this.log(error.message));
    }
    await this.writes;
  }
}
