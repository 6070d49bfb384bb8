import { lstat, readdir, rm, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { resultProblems, resultSchemaSource } from '../../../shared/insight/result-check.js';
import type { CassetteEntrySummary } from '../../../shared/api.js';
import { parseDistilled, type CassetteEntry } from '../../../shared/cassette/entry.js';
import { requestOfEntry, toolNameFromKey } from '../../engine/cassette/keys.js';
import { entryFileName, isEntryFile, parseCassetteName } from '../../engine/cassette/names.js';
import { folderPersister } from '../../engine/cassette/persist/folder.js';
import { readCassetteFile } from '../../engine/cassette/safe-read.js';
import { isPlainName, pathInside } from '../../engine/fs/inside-folder.js';
import { JsonDepthError, parseJson } from '../../../shared/json-depth.js';

/**
 * The Cassettes view's operations on a folder in mcp-rewind's layout, through the folder's persister: every store of
 * a running proxy on the folder indexes a change as it is made (the next replayed call gets the new text; nothing
 * waits for a watcher). Every `file` comes from the UI, so it is checked to be a plain entry name inside `dir`
 * before anything touches the disk.
 */

const PREVIEW_LENGTH = 120;
const READ_CONCURRENCY = 32;

/** Times each key was served from this folder's cache (computed by the controller from the traffic). */
export type HitCounts = ReadonlyMap<string, number>;

/** The absolute path of an entry file, or a clear error when `file` is not a plain entry name inside `dir`. */
export function entryPath(dir: string, file: string): string {
  if (!isPlainName(file))
    throw new Error(
      `file: ${JSON.stringify(file)} must be a plain file name inside the cassette folder (no path separators)`,
    );
  if (parseCassetteName(file)?.key === undefined)
    throw new Error(`file: ${JSON.stringify(file)} is not a cassette entry name ("<n> <key>.json")`);
  try {
    return pathInside(dir, file);
  } catch (error) {
    throw new Error(`file: ${(error as Error).message}`, { cause: error });
  }
}

function distilledPath(dir: string, file: string): string {
  const full = entryPath(dir, file);
  if (!isEntryFile(file)) throw new Error(`file: "${file}" is a debug file, not a distilled entry`);
  return full;
}

async function assertFolder(dir: string): Promise<string> {
  const folder = resolve(dir);
  const info = await stat(folder).catch(() => undefined);
  if (!info) throw new Error(`dir: no such folder ${folder}`);
  if (!info.isDirectory()) throw new Error(`dir: ${folder} is not a folder`);
  return folder;
}

const keyOf = (file: string): { n: number; key: string } => {
  const { n, key } = parseCassetteName(file) as { n: number; key: string };
  return { n, key };
};

/** An error's code and message, a stream the client ended, or else what the result holds (previewOf). */
function answerPreview(entry: CassetteEntry): string {
  if (entry.error) return clip(`error ${entry.error.code}: ${entry.error.message}`);
  if (entry.unanswered)
    return `(no answer: the client ended the stream${entry.stream?.length ? ` after ${entry.stream.length} messages` : ''})`;
  return previewOf(entry.result);
}

const clip = (whole: string): string => {
  const flat = whole.replace(/\s+/g, ' ').trim();
  return flat.length <= PREVIEW_LENGTH ? flat : flat.slice(0, PREVIEW_LENGTH - 1) + '…';
};

/** First text of a result; otherwise a short description of what it holds (image block, server info, a list). */
function previewOf(result: Record<string, unknown>): string {
  const content = Array.isArray(result.content) ? (result.content as Array<Record<string, unknown>>) : [];
  const text = content.find((b) => b?.type === 'text' && typeof b.text === 'string')?.text as string | undefined;
  const list = ['tools', 'resources', 'resourceTemplates', 'prompts'].find((field) => Array.isArray(result[field]));
  const info = result.serverInfo as { name?: unknown; version?: unknown } | undefined;
  let whole: string;
  if (text !== undefined) whole = text;
  else if (content.length)
    whole = content
      .map((b) => `[${String(b?.type)}${typeof b?.mimeType === 'string' ? ' ' + b.mimeType : ''}]`)
      .join(' ');
  else if (list) {
    const items = result[list] as Array<{ name?: unknown; uri?: unknown }>;
    whole = `${items.length} ${list}: ${items.map((i) => String(i?.name ?? i?.uri ?? '?')).join(', ')}`;
  } else if (info && typeof info.name === 'string') whole = `${info.name} ${String(info.version ?? '')}`;
  else whole = JSON.stringify(result);
  return clip(whole);
}

export function summarize(entry: CassetteEntry, hits: HitCounts): CassetteEntrySummary {
  const isCall = entry.key.startsWith('tools_call_');
  return {
    file: entry.file,
    n: entry.n,
    key: entry.key,
    method: entry.method ?? requestOfEntry(entry)?.method,
    ...(isCall ? { tool: entry.name ?? toolNameFromKey(entry.key), arguments: entry.arguments } : {}),
    preview: answerPreview(entry),
    recordedAt: entry.recordedAt,
    hits: hits.get(entry.key) ?? 0,
  };
}

/** Parses the text of a distilled entry; for tools/call entries the result must be a valid MCP CallToolResult. */
export function parseEntryText(file: string, text: string): CassetteEntry {
  let data: unknown;
  try {
    data = parseJson(text);
  } catch (error) {
    throw new Error(`text: ${error instanceof JsonDepthError ? '' : 'not valid JSON: '}${(error as Error).message}`, {
      cause: error,
    });
  }
  const { n, key } = keyOf(file);
  let entry: CassetteEntry;
  try {
    entry = parseDistilled(n, key, file, data);
  } catch (error) {
    const issues = (error as { issues?: Array<{ path: PropertyKey[]; message: string }> }).issues;
    const detail = issues
      ? issues.map((i) => `${i.path.length ? i.path.join('.') : '(entry)'}: ${i.message}`).join('; ')
      : (error as Error).message;
    throw new Error(`text: not a cassette entry: ${detail}`, { cause: error });
  }
  if (key.startsWith('tools_call_')) {
    // the protocol's own schema for the entry's revision (the SDK's): what a client will judge the replayed answer by
    const prefix = typeof data === 'object' && data !== null && 'result' in data ? 'result' : '(result)';
    const problems = resultProblems('tools/call', entry.result, entry.protocolVersion, prefix);
    if (problems.length > 0)
      throw new Error(
        `text: not a valid MCP tool result (${resultSchemaSource(entry.protocolVersion)}): ${problems.join('; ')}`,
      );
  }
  return entry;
}

async function readEntryFile(full: string, file: string): Promise<string> {
  try {
    return await readCassetteFile(dirname(full), file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      throw new Error(`file: no entry "${file}" in this folder`, { cause: error });
    throw new Error(`file: ${(error as Error).message}`, { cause: error });
  }
}

export async function listEntries(
  dir: string,
  hits: HitCounts,
): Promise<{ dir: string; entries: CassetteEntrySummary[] }> {
  const folder = await assertFolder(dir);
  const files = (await readdir(folder)).filter(isEntryFile);
  const entries: CassetteEntrySummary[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < files.length) {
      const file = files[next++];
      const { n, key } = keyOf(file);
      try {
        entries.push(summarize(parseEntryText(file, await readCassetteFile(folder, file)), hits));
      } catch (error) {
        // a broken file stays visible, so it can be opened and fixed
        entries.push({
          file,
          n,
          key,
          preview: `(invalid entry) ${(error as Error).message}`.slice(0, PREVIEW_LENGTH),
          hits: hits.get(key) ?? 0,
        });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, files.length) }, worker));
  entries.sort((a, b) => a.n - b.n || a.file.localeCompare(b.file));
  return { dir: folder, entries };
}

export async function readEntry(dir: string, file: string): Promise<{ text: string }> {
  const full = entryPath(dir, file);
  await assertFolder(dir);
  return { text: await readEntryFile(full, file) };
}

/** Validates and writes a hand-edited entry (the text is kept as typed). */
export async function writeEntry(
  dir: string,
  file: string,
  text: string,
  hits: HitCounts,
): Promise<{ entry: CassetteEntrySummary; parsed: CassetteEntry }> {
  const full = distilledPath(dir, file);
  await assertFolder(dir);
  const parsed = parseEntryText(file, text);
  await folderPersister(dirname(full)).writeText(file, text, parsed);
  return { entry: summarize(parsed, hits), parsed };
}

/** Deletes an entry and its debug siblings (`.req.json`, `.res.json`, `.res-head.json`). */
export async function deleteEntry(dir: string, file: string): Promise<{ deleted: string }> {
  const full = entryPath(dir, file);
  await assertFolder(dir);
  // a regular file, or a symbolic link planted in the folder (deleting the link never touches its target)
  const info = await lstat(full).catch(() => undefined);
  if (!info) throw new Error(`file: no entry "${file}" in this folder`);
  if (!info.isFile() && !info.isSymbolicLink()) throw new Error(`file: "${file}" is not a regular file`);
  if (isEntryFile(file))
    await folderPersister(dirname(full)).delete(file); // and its debug siblings
  else await rm(full);
  return { deleted: file };
}

/** Copies an entry to the next free sequence number: `<max n + 1> <key>.json`. */
export async function duplicateEntry(
  dir: string,
  file: string,
  hits: HitCounts,
): Promise<{ entry: CassetteEntrySummary; parsed: CassetteEntry }> {
  const full = distilledPath(dir, file);
  const folder = await assertFolder(dir);
  const text = await readEntryFile(full, file);
  const persister = folderPersister(folder);
  const copy = entryFileName(await persister.freshN(), keyOf(file).key);
  const parsed = parseEntryText(copy, text);
  await persister.writeText(copy, text, parsed);
  return { entry: summarize(parsed, hits), parsed };
}
