import { mkdir, readdir, realpath, rm, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { syncFolder, writeAtomic } from '../../engine/fs/atomic-write.js';
import {
  exportHarTo,
  exportSingleFileTo,
  redactDeep,
  writeHarExport,
  writeSingleFileExport,
} from '../../engine/cassette/export.js';
import { CountingSink } from '../../engine/cassette/persist/json-stream.js';
import { isEntryFile, parseCassetteName } from '../../engine/cassette/names.js';
import { REDACTED } from '../../engine/redact.js';
import { jsonErrorMessage, readCassetteFile, UnsafeEntryError } from '../../engine/cassette/safe-read.js';
import type { ExportFormat, ExportPreview, ExportResult } from '../../../shared/api.js';
import { shellQuote } from '../../../shared/shell-quote.js';
import { parseJson } from '../../../shared/json-depth.js';

/**
 * The Export view's `export.preview` / `export.run`: a cassette folder as a folder holding only the replay files
 * (`<n> <key>.json`), as a single-file cassette, or as HAR 1.2 (the CLI's export.ts). Secrets stay redacted (every
 * written JSON goes through redactDeep). Paths come from the UI, so the output is checked before anything is written:
 * absolute or relative to the user's working directory, never inside (or around) the source folder, and an existing
 * non-empty folder or an existing file is replaced only with `overwrite: true`.
 */

export interface ExportRequest {
  dir: string;
  format: ExportFormat;
  out: string;
  overwrite?: boolean;
  /** the directory a relative `out` (and `dir`) is resolved against: the user's working directory */
  cwd?: string;
  /** the app's version: HAR's creator, and the package version the printed command pins */
  version?: string;
}

/** What an export wrote (run) or would write (preview). */
interface Outcome {
  out: string;
  files: Array<{ path: string; bytes: number }>;
  skipped: string[];
  redacted: number;
}

/** How many values of a document are "[REDACTED]". */
export function countRedacted(value: unknown): number {
  if (value === REDACTED) return 1;
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + countRedacted(v), 0);
  if (value !== null && typeof value === 'object')
    return Object.values(value).reduce((n: number, v) => n + countRedacted(v), 0);
  return 0;
}

/** The real path of `path`, or of its nearest existing ancestor joined with the rest (symlinks resolved). */
async function realish(path: string): Promise<string> {
  const rest: string[] = [];
  let at = path;
  for (;;) {
    try {
      return join(await realpath(at), ...rest.reverse());
    } catch {
      const parent = dirname(at);
      if (parent === at) return path;
      rest.push(basename(at));
      at = parent;
    }
  }
}

const within = (parent: string, child: string): boolean => {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && !rel.startsWith(sep));
};

async function checkPaths(req: ExportRequest): Promise<{ source: string; out: string; cleanFolder: boolean }> {
  const source = resolve(req.cwd ?? process.cwd(), req.dir);
  const info = await stat(source).catch(() => undefined);
  if (!info) throw new Error(`dir: no such folder ${source}`);
  if (!info.isDirectory()) throw new Error(`dir: ${source} is not a cassette folder`);
  const typed = req.out.trim();
  if (!typed) throw new Error('out: give an output path');
  if (typed.includes('\0')) throw new Error('out: the path contains a NUL character');
  const out = resolve(req.cwd ?? process.cwd(), typed);
  const [realSource, realOut] = await Promise.all([realish(source), realish(out)]);
  if (within(realSource, realOut))
    throw new Error(`out: ${out} is inside the source folder ${source}; choose a path outside it`);
  if (within(realOut, realSource))
    throw new Error(`out: ${out} contains the source folder ${source}; choose a path outside it`);
  const existing = await stat(out).catch(() => undefined);
  let cleanFolder = false;
  if (req.format === 'folder') {
    if (existing && !existing.isDirectory())
      throw new Error(`out: ${out} is a file; a folder export needs a folder path`);
    if (existing && (await readdir(out)).length > 0) {
      if (!req.overwrite)
        throw new Error(`out: the folder ${out} exists and is not empty; set overwrite to replace its cassette files`);
      cleanFolder = true;
    }
  } else {
    if (existing?.isDirectory())
      throw new Error(
        `out: ${out} is a folder; a ${req.format === 'har' ? 'HAR' : 'single-file'} export needs a file path`,
      );
    if (existing && !req.overwrite) throw new Error(`out: the file ${out} exists; set overwrite to replace it`);
  }
  return { source, out, cleanFolder };
}

/**
 * Exports, or (`write` false) goes through the same steps without writing, to tell sizes, redactions and refusals.
 * One entry at a time: a single file or HAR is streamed to its file, a folder copied file by file, so memory does not
 * grow with the cassette.
 */
async function exportAs(req: ExportRequest, write: boolean): Promise<Outcome> {
  const { source, out, cleanFolder } = await checkPaths(req);
  // entries refused on the way (symbolic links out of the folder…) are reported as skipped, with the reason
  const skipped: string[] = [];
  const log = (line: string): void => void skipped.push(line.replace(/^cassette: /, ''));
  let redacted = 0;
  const inspect = (item: unknown): void => void (redacted += countRedacted(item));
  if (req.format === 'file' || req.format === 'har') {
    const options = { creatorVersion: req.version, log, inspect };
    let bytes: number;
    if (write) {
      await mkdir(dirname(out), { recursive: true });
      bytes = (
        await (req.format === 'file'
          ? writeSingleFileExport(source, out, options)
          : writeHarExport(source, out, options))
      ).bytes;
    } else {
      const counting = new CountingSink();
      await (req.format === 'file'
        ? exportSingleFileTo(source, counting, options)
        : exportHarTo(source, counting, options));
      bytes = counting.bytes;
    }
    return { out, files: [{ path: out, bytes }], skipped, redacted };
  }
  if (write) {
    await mkdir(out, { recursive: true });
    if (cleanFolder)
      for (const name of await readdir(out)) if (parseCassetteName(name)) await rm(join(out, name), { force: true });
  }
  const names = (await readdir(source))
    .filter(isEntryFile)
    .sort((a, b) => parseInt(a, 10) - parseInt(b, 10) || a.localeCompare(b));
  const files: Outcome['files'] = [];
  for (const name of names) {
    let text: string;
    try {
      text = await readCassetteFile(source, name);
    } catch (error) {
      if (!(error instanceof UnsafeEntryError)) throw error;
      log(error.message);
      continue;
    }
    let data: unknown;
    try {
      data = parseJson(text);
    } catch (error) {
      skipped.push(`${name}: ${jsonErrorMessage(error)}`);
      continue;
    }
    const clean = redactDeep(data);
    redacted += countRedacted(clean);
    // verbatim unless something had to be redacted now
    const content = JSON.stringify(clean) !== JSON.stringify(data) ? JSON.stringify(clean, null, 2) + '\n' : text;
    if (write) await writeAtomic(out, name, content, { durable: false }); // one copy of many: the folder is synced once, below
    files.push({ path: join(out, name), bytes: Buffer.byteLength(content) });
  }
  if (write) await syncFolder(out);
  return { out, files, skipped, redacted };
}

/** The command for a CI job in any folder: the published package pinned to this app's version. */
function command(req: ExportRequest, out: string): string {
  const typed = req.out.trim();
  const shown = shellQuote(isAbsolute(typed) ? out : typed);
  const cli = req.version ? `npx mcp-rewind@${req.version}` : 'npx mcp-rewind';
  if (req.format === 'har') return `${cli} export --cache ${shellQuote(req.dir.trim())} --har ${shown}`;
  return `${cli} --replay --cache ${shown}`;
}

export async function previewExport(req: ExportRequest): Promise<ExportPreview> {
  const p = await exportAs(req, false);
  return { out: p.out, files: p.files, command: command(req, p.out), redacted: p.redacted, skipped: p.skipped };
}

export async function runExport(req: ExportRequest): Promise<ExportResult> {
  const p = await exportAs(req, true);
  return {
    out: p.out,
    written: p.files.map((f) => f.path),
    command: command(req, p.out),
    redacted: p.redacted,
    skipped: p.skipped,
  };
}
