import { readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ProxyConfigSchema } from '../../shared/api.js';
import { BreakpointRuleInputSchema } from '../../shared/breakpoints.js';
import { describeZodError } from '../../shared/rules/schema.js';
import { writeFileAtomic } from './atomic-file.js';

/**
 * The workspace: `<data folder>/workspace.json` — every proxy's configuration (rules included), whether it should
 * run, the port it last had, and its breakpoints — so that both shells find them again at the next start. Written
 * atomically, owner-only (an upstream URL may carry credentials). An unusable file never stops the app: it is kept
 * as workspace.json.bad and reported.
 */
export const WORKSPACE_FILE = 'workspace.json';

const SavedProxySchema = z.strictObject({
  id: z.string().min(1).max(100),
  name: z.string().min(1).max(100),
  config: ProxyConfigSchema,
  /** the user wants it running (it was running, starting or failed when saved) */
  running: z.boolean(),
  lastPort: z.number().int().min(1).max(65535).optional(),
  demo: z.boolean().optional(),
  breakpoints: z.array(BreakpointRuleInputSchema).max(200).default([]),
});
export type SavedProxy = z.infer<typeof SavedProxySchema>;

const WorkspaceSchema = z.strictObject({
  version: z.literal(1),
  proxies: z.array(SavedProxySchema).max(1000),
});

export class WorkspaceFile {
  readonly file: string;
  private writes: Promise<unknown> = Promise.resolve();
  private queued?: SavedProxy[];
  private timer?: NodeJS.Timeout;

  constructor(
    dataDir: string,
    private readonly log: (line: string) => void,
  ) {
    this.file = join(dataDir, WORKSPACE_FILE);
  }

  /** The saved proxies ([] when there is no file, or it is unusable: then it is moved aside and reported). */
  load(): SavedProxy[] {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.log(`cannot read ${this.file}: ${(error as Error).message}; no proxies restored`);
      return [];
    }
    let why: string;
    try {
      const parsed = WorkspaceSchema.safeParse(JSON.parse(text));
      if (parsed.success) return parsed.data.proxies;
      why = describeZodError(parsed.error);
    } catch (error) {
      why = `not JSON (${(error as Error).message})`;
    }
    try {
      renameSync(this.file, `${this.file}.bad`);
      why += `; it was kept as ${WORKSPACE_FILE}.bad`;
    } catch {
      /* left where it is */
    }
    this.log(`${this.file} was not usable: ${why}; no proxies restored`);
    return [];
  }

  /** Saves soon (changes in one burst make one write). */
  save(proxies: SavedProxy[]): void {
    this.queued = proxies;
    this.timer ??= setTimeout(() => void this.flush(), 50);
  }

  /** Writes what is queued now; resolves when every write so far is on disk. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const proxies = this.queued;
    this.queued = undefined;
    if (proxies) {
      const text = `${JSON.stringify({ version: 1, proxies }, null, 2)}\n`;
      this.writes = this.writes.then(() => writeFileAtomic(this.file, text)).catch((error: Error) => this.log(error.message));
    }
    await this.writes;
  }
}
