import type { InterceptSelection, InterceptServer } from '../../shared/intercept.js';
import { CLIENTS } from './clients.js';
import { openConfigDoc } from './config-doc.js';
import { valueAt, type ReadConfig } from './discover.js';
import { proxyUrl, recordedTransport, unwrapStdio, urlKey, wrappedArgs, type Entry, type Launcher } from './entry.js';
import { applyReverse, reversePatch, sha256, type LedgerRecord } from './ledger.js';

/**
 * What a wrap or an unwrap will write, file by file, computed from the files as read (nothing is written here). A
 * wrap changes `command` + `args` (stdio) or the URL (HTTP) of each entry and nothing else; an unwrap undoes the
 * recorded change byte for byte when the file is as mcp-rewind left it, else restores only that entry.
 */

export type PlannedRecord = Omit<LedgerRecord, 'at' | 'backup'>;

export interface FilePlan {
  read: ReadConfig;
  before: string;
  after: string;
  targets: string[];
  /** wrap: the records to keep; unwrap: the records it undoes */
  records: PlannedRecord[];
  undone: LedgerRecord[];
  /** unwrap: the file is back to its bytes before the first change */
  exact?: boolean;
}

export interface PlanContext {
  reads: ReadConfig[];
  ledger: LedgerRecord[];
  launcher: Launcher;
  /** the app's data folder, named in wrapped entries */
  dataDir: string;
  /** a free local port for an HTTP server's proxy */
  freePort(): Promise<number>;
}

type Found = { read: ReadConfig; server: InterceptServer & { path: string[] } };

/** The servers a selection names; a name found in several files needs `file`. */
export function select(selection: InterceptSelection, reads: ReadConfig[]): { found: Found[]; skipped: string[] } {
  const skipped: string[] = [];
  const files = reads.filter(
    (r) =>
      r.location.client === selection.client &&
      (!selection.file || r.location.path === selection.file || r.realPath === selection.file),
  );
  for (const r of files) if (r.error) skipped.push(`${r.location.path}: ${r.error} (left as it is)`);
  const found = files.flatMap((read) =>
    read.servers.filter((s) => !selection.server || s.name === selection.server).map((server) => ({ read, server })),
  );
  if (selection.server && found.length === 0) {
    const names = files.flatMap((r) => r.servers.map((s) => s.name));
    throw new Error(
      `no server "${selection.server}" in ${CLIENTS[selection.client].label}'s config${names.length ? ` (it has: ${names.join(', ')})` : ''}`,
    );
  }
  if (selection.server && new Set(found.map((f) => f.read.location.path)).size > 1)
    throw new Error(
      `"${selection.server}" is in several files: ${found.map((f) => f.read.location.path).join(', ')}; name one with --file`,
    );
  return { found, skipped };
}

function change(
  text: string,
  format: ReadConfig['location']['format'],
  path: string[],
  key: string,
  value: unknown,
): string {
  return openConfigDoc(text, format).set([...path, key], { value });
}

/** One entry wrapped: the new text and the record that undoes it. */
async function wrapOne(
  text: string,
  { read, server }: Found,
  context: PlanContext,
  record?: string,
): Promise<{ text: string; record: PlannedRecord }> {
  const { format } = read.location;
  const doc = openConfigDoc(text, format);
  const entry = valueAt(doc.value, server.path) as Entry;
  let values: Array<[string, unknown]>;
  let proxy: PlannedRecord['proxy'];
  if (server.transport.kind === 'stdio') {
    values = [
      ['command', context.launcher.command],
      ['args', wrappedArgs(context.launcher, server.target, server.transport, { dataDir: context.dataDir, record })],
    ];
  } else {
    const port = await context.freePort();
    proxy = { port };
    values = [[urlKey(entry)!, proxyUrl(port, server.transport.sse)]];
  }
  // one key at a time, each undone by its own span: a span never holds more of the file than that value (no env)
  let after = text;
  const reverse: PlannedRecord['reverse'] = [];
  for (const [key, value] of values) {
    const next = change(after, format, server.path, key, value);
    reverse.push(reversePatch(after, next));
    after = next;
  }
  const keys = values.map(([key]) => key);
  const done = openConfigDoc(after, format);
  return {
    text: after,
    record: {
      target: server.target,
      client: read.location.client,
      file: read.realPath,
      format,
      path: server.path,
      original: recordedTransport(server.transport),
      keys: keys.map((key) => ({
        key,
        before: doc.raw([...server.path, key]) ?? null,
        after: done.raw([...server.path, key])!,
      })),
      beforeHash: sha256(text),
      afterHash: sha256(after),
      reverse,
      ...(proxy ? { proxy } : {}),
    },
  };
}

/** Groups found servers by file, in file order. */
function byFile(found: Found[]): Map<ReadConfig, Found[]> {
  const files = new Map<ReadConfig, Found[]>();
  for (const f of found) files.set(f.read, [...(files.get(f.read) ?? []), f]);
  return files;
}

export async function planWrap(
  selection: InterceptSelection,
  context: PlanContext,
): Promise<{ files: FilePlan[]; skipped: string[] }> {
  const { found, skipped } = select(selection, context.reads);
  const files: FilePlan[] = [];
  for (const [read, servers] of byFile(found)) {
    const before = read.doc!.text;
    let text = before;
    const records: PlannedRecord[] = [];
    for (const f of servers) {
      if (f.server.state === 'intercepted') {
        skipped.push(`${f.server.target}: already goes through mcp-rewind`);
        continue;
      }
      const wrapped = await wrapOne(text, f, context, selection.record);
      text = wrapped.text;
      records.push(wrapped.record);
    }
    if (records.length)
      files.push({ read, before, after: text, targets: records.map((r) => r.target), records, undone: [] });
  }
  return { files, skipped };
}

/** One entry put back: the recorded change undone exactly, else the entry restored (the rest of the file untouched). */
export function unwrapOne(
  text: string,
  read: ReadConfig,
  path: string[],
  record: LedgerRecord | undefined,
  server?: InterceptServer,
): string | undefined {
  if (record && sha256(text) === record.afterHash) return applyReverse(text, record.reverse);
  const { format } = read.location;
  const doc = openConfigDoc(text, format);
  if (record && record.keys.every((k) => doc.raw([...path, k.key]) === k.after)) {
    return record.keys.reduceRight(
      (t, k) => openConfigDoc(t, format).set([...path, k.key], k.before === null ? undefined : { raw: k.before }),
      text,
    );
  }
  const wrapped = server && unwrapStdio(server.transport);
  if (wrapped) {
    const restored = change(text, format, path, 'command', wrapped.original.command);
    const noArgs = wrapped.original.args.length === 0 && record?.keys.find((k) => k.key === 'args')?.before === null;
    return openConfigDoc(restored, format).set(
      [...path, 'args'],
      noArgs ? undefined : { value: wrapped.original.args },
    );
  }
  if (record?.original.kind === 'http' && record.keys[0])
    return change(text, format, path, record.keys[0].key, record.original.url);
  return undefined;
}

/** Unwraps the records given (`unwrap --all`) or the servers selected, newest change first, file by file. */
export function planUnwrap(
  selection: InterceptSelection | 'all',
  context: Pick<PlanContext, 'reads' | 'ledger'>,
): { files: FilePlan[]; skipped: string[] } {
  const skipped: string[] = [];
  const targets: Array<{ read: ReadConfig; path: string[]; server?: InterceptServer; record?: LedgerRecord }> = [];
  const recordOf = (read: ReadConfig, path: string[]): LedgerRecord | undefined =>
    context.ledger.findLast((r) => r.file === read.realPath && r.path.join('\0') === path.join('\0'));
  if (selection === 'all') {
    for (const record of [...context.ledger].reverse()) {
      const read = context.reads.find((r) => r.realPath === record.file);
      if (!read?.doc) skipped.push(`${record.target}: ${record.file} ${read?.error ?? 'is gone'} (its record is kept)`);
      else
        targets.push({
          read,
          path: record.path,
          record,
          server: read.servers.find((s) => s.path.join('\0') === record.path.join('\0')),
        });
    }
  } else {
    const found = select(selection, context.reads);
    skipped.push(...found.skipped);
    for (const { read, server } of found.found) {
      const record = recordOf(read, server.path);
      if (server.state !== 'intercepted' && !record) skipped.push(`${server.target}: does not go through mcp-rewind`);
      else targets.push({ read, path: server.path, server, record });
    }
  }
  const files = new Map<ReadConfig, FilePlan>();
  for (const t of targets) {
    const plan = files.get(t.read) ?? {
      read: t.read,
      before: t.read.doc!.text,
      after: t.read.doc!.text,
      targets: [],
      records: [],
      undone: [],
    };
    const after = unwrapOne(plan.after, t.read, t.path, t.record, t.server);
    if (after === undefined) {
      skipped.push(
        `${t.server?.target ?? t.record?.target}: points at a local proxy that mcp-rewind has no record of: edit it by hand`,
      );
      continue;
    }
    plan.after = after;
    plan.targets.push(t.server?.target ?? t.record!.target);
    if (t.record) plan.undone.push(t.record);
    plan.exact = t.record !== undefined && sha256(after) === t.record.beforeHash;
    files.set(t.read, plan);
  }
  return { files: [...files.values()], skipped };
}
