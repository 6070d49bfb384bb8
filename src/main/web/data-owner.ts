import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';

/**
 * Which shell runs on a user data folder: one process at a time manages its proxies and saves its workspace (two would
 * overwrite each other's workspace.json). `<dataDir>/owner.json` names the process (pid, shell, the UI's address);
 * a second `mcp-rewind ui` opens the running one instead of starting beside it.
 */
export interface DataOwner {
  pid: number;
  shell: 'browser' | 'electron';
  /** the browser UI's origin (no token: the token is in the data folder's ui-token) */
  origin?: string;
  since: string;
}

const ownerFile = (dataDir: string): string => join(dataDir, 'owner.json');

function read(dataDir: string): DataOwner | undefined {
  try {
    const owner = JSON.parse(readFileSync(ownerFile(dataDir), 'utf8')) as DataOwner;
    return Number.isInteger(owner.pid) && (owner.shell === 'browser' || owner.shell === 'electron') ? owner : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // someone else's process: alive
  }
}

/** the UI at `origin` answers its auth probe (a pid reused by another program, or a zombie, does not) */
function answers(origin: string, timeoutMs = 1500): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(`${origin}/api/auth`, { method: 'GET', timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode === 204 || res.statusCode === 401);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

/** The live owner of the folder other than this process, if any; a stale owner.json (process gone) is ignored. */
export async function liveOwner(dataDir: string): Promise<DataOwner | undefined> {
  const owner = read(dataDir);
  if (!owner || owner.pid === process.pid || !alive(owner.pid)) return undefined;
  if (owner.origin && !(await answers(owner.origin))) return undefined;
  return owner;
}

/**
 * Records this process as the folder's owner (replacing a stale record); `release` removes the record if it is still
 * ours. Exclusive creation first, so that two shells starting at once do not both win.
 */
export function claimDataDir(dataDir: string, owner: Omit<DataOwner, 'pid' | 'since'>): { release(): void } {
  const record: DataOwner = { pid: process.pid, since: new Date().toISOString(), ...owner };
  const text = JSON.stringify(record, null, 2) + '\n';
  const file = ownerFile(dataDir);
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o600);
  } catch {
    rmSync(file, { force: true }); // the caller found no live owner: the record is stale
    fd = openSync(file, 'wx', 0o600); // never through a link planted meanwhile
  }
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  return {
    release: () => {
      if (read(dataDir)?.pid === process.pid) rmSync(file, { force: true });
    },
  };
}
