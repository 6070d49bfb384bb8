import { join } from 'node:path';
import { z } from 'zod';
import { ProxyConfigSchema } from '../../../shared/proxy-config.js';
import { BreakpointRuleInputSchema, type BreakpointRuleInput } from '../../../shared/breakpoints.js';
import { StateFile } from './state-file.js';

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
  /** the breakpoints that apply in every proxy */
  everyProxy: z.array(BreakpointRuleInputSchema).max(200).default([]),
});

export class WorkspaceFile {
  private readonly state: StateFile<typeof WorkspaceSchema>;
  /** every proxy's breakpoints as last loaded or saved (a save that does not give them keeps them) */
  private everyProxy: BreakpointRuleInput[] = [];

  constructor(dataDir: string, log: (line: string) => void) {
    this.state = new StateFile(join(dataDir, WORKSPACE_FILE), WorkspaceSchema, 'no proxies restored', log);
  }

  get file(): string {
    return this.state.file;
  }

  /** The saved proxies ([] when there is no file, or it is unusable: then it is moved aside and reported). */
  load(): SavedProxy[] {
    const state = this.state.load();
    this.everyProxy = state?.everyProxy ?? [];
    return state?.proxies ?? [];
  }

  /** the breakpoints of every proxy, as the last load found them */
  everyProxyBreakpoints(): BreakpointRuleInput[] {
    return this.everyProxy;
  }

  /** Saves soon (changes in one burst make one write). */
  save(proxies: SavedProxy[], everyProxy = this.everyProxy): void {
    this.everyProxy = everyProxy;
    this.state.save({ version: 1, proxies, everyProxy });
  }

  /** Saves now; rejects when the file could not be written (it then holds what it held). */
  saveNow(proxies: SavedProxy[], everyProxy = this.everyProxy): Promise<void> {
    this.everyProxy = everyProxy;
    return this.state.saveNow({ version: 1, proxies, everyProxy });
  }

  /** Writes what is queued now; resolves when every write so far is on disk. */
  flush(): Promise<void> {
    return this.state.flush();
  }
}
