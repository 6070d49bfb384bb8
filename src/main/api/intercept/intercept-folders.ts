import { statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import { InterceptFolderSchema, type InterceptFolder } from '../../../shared/intercept.js';
import { StateFile } from '../files/state-file.js';

const MAX_FOLDERS = 50;
const SavedSchema = z.strictObject({ version: z.literal(1), folders: z.array(InterceptFolderSchema).max(MAX_FOLDERS) });

/** Why a path cannot be looked in now, or undefined when it is a folder. */
function folderProblem(path: string): string | undefined {
  try {
    return statSync(path).isDirectory() ? undefined : 'not a folder';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? 'no such folder' : `cannot be read (${code ?? (error as Error).message})`;
  }
}

/**
 * The folders the user added to the Intercept view (a project, another home), kept in `<data folder>/
 * intercept-folders.json`. Only these (and the app's own HOME and working folder) are read, and only files found in
 * them are ever changed by a wrap. A folder is checked when added (it must exist and be a folder); one that went away
 * since is listed with its problem and not read.
 */
export class InterceptFolders {
  private readonly state: StateFile<typeof SavedSchema>;
  private folders: InterceptFolder[];

  constructor(dataDir: string, log: (line: string) => void) {
    this.state = new StateFile(join(dataDir, 'intercept-folders.json'), SavedSchema, 'no Intercept folders kept', log);
    this.folders = this.state.load()?.folders ?? [];
  }

  /** the folders with what is wrong with each now */
  list(): Array<InterceptFolder & { problem?: string }> {
    return this.folders.map((f) => {
      const problem = folderProblem(f.path);
      return problem ? { ...f, problem } : { ...f };
    });
  }

  /** what discover reads: the folders that are usable now, by kind */
  usable(kind: InterceptFolder['kind']): string[] {
    return this.folders.filter((f) => f.kind === kind && !folderProblem(f.path)).map((f) => f.path);
  }

  async add(folder: InterceptFolder): Promise<void> {
    if (!isAbsolute(folder.path)) throw new Error(`path: give the folder's full path (${folder.path} is relative)`);
    const path = resolve(folder.path);
    const problem = folderProblem(path);
    if (problem) throw new Error(`path: ${path}: ${problem}`);
    if (this.folders.some((f) => f.path === path && f.kind === folder.kind)) return;
    if (this.folders.length >= MAX_FOLDERS) throw new Error(`path: at most ${MAX_FOLDERS} folders; remove one first`);
    await this.save([...this.folders, { path, kind: folder.kind }]);
  }

  async remove(path: string): Promise<void> {
    const kept = this.folders.filter((f) => f.path !== path);
    if (kept.length === this.folders.length) throw new Error(`path: ${path} is not a folder looked in`);
    await this.save(kept);
  }

  /** written before it is answered: what the view shows is what is on disk */
  private async save(folders: InterceptFolder[]): Promise<void> {
    await this.state.saveNow({ version: 1, folders });
    this.folders = folders;
  }
}
