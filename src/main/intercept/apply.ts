import { readFile, rm, stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { InterceptResult } from '../../shared/intercept.js';
import { writeAtomic } from '../engine/fs/atomic-write.js';
import { CLIENTS } from './clients.js';
import { sha256, type Ledger, type LedgerRecord } from './ledger.js';
import type { FilePlan } from './plan.js';

/** The app's proxies for wrapped HTTP servers: made when a wrap is written, removed by the unwrap. */
export interface ProxyHost {
  /** a proxy on `port` in front of `upstreamUrl` (recording to `record`); answers its id in the app, if any */
  ensure(input: { target: string; upstreamUrl: string; port: number; record?: string }): Promise<{ id?: string }>;
  remove(proxy: { id?: string; port: number }): Promise<void>;
}

/** A file changed by someone else since it was read: nothing is written over it. */
export class ConcurrentEdit extends Error {
  override readonly name = 'ConcurrentEdit';
}

export const backupPath = (file: string): string => `${file}.mcp-rewind.bak`;

/** Writes `text` in place of `file` atomically, with the file's own permissions, if the file still holds `expected`. */
async function replaceIfUnchanged(file: string, expected: string, text: string): Promise<void> {
  const [current, info] = await Promise.all([readFile(file, 'utf8'), stat(file)]);
  if (sha256(current) !== sha256(expected))
    throw new ConcurrentEdit(
      `${file} changed since it was read (by someone else?): nothing was written; list it again and retry`,
    );
  await writeAtomic(dirname(file), basename(file), text, { mode: info.mode & 0o7777 });
}

/** Before the first change of a file (no change of ours outstanding), its bytes as they were, beside it. */
async function backup(plan: FilePlan, outstanding: LedgerRecord[]): Promise<string | undefined> {
  const file = plan.read.realPath;
  const kept = outstanding.find((r) => r.file === file && r.backup)?.backup;
  if (kept) return kept;
  const { mode } = await stat(file);
  return writeAtomic(dirname(file), basename(backupPath(file)), plan.before, { mode: mode & 0o7777 });
}

async function writeWrap(
  plan: FilePlan,
  ledger: Ledger,
  proxies: ProxyHost | undefined,
  record: string | undefined,
): Promise<{ backup?: string }> {
  const outstanding = ledger.read();
  const saved = await backup(plan, outstanding);
  const at = new Date().toISOString();
  const records: LedgerRecord[] = [];
  for (const planned of plan.records) {
    let proxy = planned.proxy;
    if (proxy && planned.original.kind === 'http') {
      if (!proxies)
        throw new Error(`${planned.target}: an HTTP server goes through a proxy of the app; none can be made here`);
      proxy = {
        ...proxy,
        ...(await proxies.ensure({
          target: planned.target,
          upstreamUrl: planned.original.url,
          port: proxy.port,
          record,
        })),
      };
    }
    records.push({ ...planned, ...(proxy ? { proxy } : {}), ...(saved ? { backup: saved } : {}), at });
  }
  await ledger.add(records); // first: a crash between the two leaves a record of a change not made, never a change without one
  try {
    await replaceIfUnchanged(plan.read.realPath, plan.before, plan.after);
  } catch (error) {
    await ledger.remove(records);
    for (const r of records) if (r.proxy) await proxies?.remove(r.proxy).catch(() => {});
    throw error;
  }
  return { backup: saved };
}

async function writeUnwrap(plan: FilePlan, ledger: Ledger, proxies: ProxyHost | undefined): Promise<void> {
  await replaceIfUnchanged(plan.read.realPath, plan.before, plan.after);
  await ledger.remove(plan.undone);
  for (const r of plan.undone) if (r.proxy) await proxies?.remove(r.proxy).catch(() => {});
  const left = ledger.read().some((r) => r.file === plan.read.realPath);
  const saved = plan.undone.find((r) => r.backup)?.backup;
  // the backup has done its job once the file is back to those very bytes
  if (!left && saved && plan.exact && (await readFile(saved, 'utf8').catch(() => undefined)) === plan.after)
    await rm(saved, { force: true });
}

/** Writes planned changes, file by file: a file that changed meanwhile, or fails, is reported and the others go on. */
export async function applyPlan(
  action: 'wrap' | 'unwrap',
  plan: { files: FilePlan[]; skipped: string[] },
  deps: { ledger: Ledger; proxies?: ProxyHost; record?: string },
): Promise<InterceptResult> {
  const result: InterceptResult = { action, written: [], skipped: [...plan.skipped], hints: [] };
  for (const file of plan.files) {
    try {
      if (action === 'wrap') {
        const { backup } = await writeWrap(file, deps.ledger, deps.proxies, deps.record);
        for (const target of file.targets)
          result.written.push({ path: file.read.location.path, target, ...(backup ? { backup } : {}) });
      } else {
        await writeUnwrap(file, deps.ledger, deps.proxies);
        for (const target of file.targets)
          result.written.push({ path: file.read.location.path, target, exact: file.exact === true });
      }
      const hint = `${CLIENTS[file.read.location.client].label}: ${CLIENTS[file.read.location.client].applyHint}`;
      if (!result.hints.includes(hint)) result.hints.push(hint);
    } catch (error) {
      result.skipped.push(`${file.targets.join(', ')}: ${(error as Error).message}`);
    }
  }
  return result;
}
