import { Command } from 'commander';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { exportHar, exportSingleFile } from '../engine/cassette/export.js';
import { UsageError } from '../engine/errors.js';

/** `mcp-rewind export`: a single-file cassette (`--out`) and/or HAR 1.2 (`--har`). */
export function buildExportProgram(): Command {
  return new Command('mcp-rewind export')
    .description('Export a cassette folder as one JSON file (replayable with --cache FILE) and/or as HAR 1.2')
    .helpOption('-h, --help', 'show this help')
    .option('-c, --cache <dir>', 'cassette folder', './cache')
    .option('-o, --out <file>', 'write the single-file cassette (JSON) here')
    .option('--har <file>', 'write HAR 1.2 here (from the debug files; secrets redacted)');
}

export interface ExportCliOptions {
  cache: string;
  out?: string;
  har?: string;
}

export function toExportOptions(raw: Record<string, unknown>): ExportCliOptions {
  const cache = String(raw.cache);
  const out = raw.out as string | undefined;
  const har = raw.har as string | undefined;
  if (!out && !har) throw new UsageError('nothing to export: give --out FILE and/or --har FILE');
  if (!existsSync(cache)) throw new UsageError(`--cache ${cache} does not exist`);
  return { cache, out, har };
}

/** Writes the exports; resolves with the lines to print. */
export async function runExport(options: ExportCliOptions, creatorVersion: string, log?: (line: string) => void): Promise<string> {
  const lines: string[] = [];
  if (options.out) {
    const cassette = await exportSingleFile(options.cache, { log });
    await writeFile(options.out, JSON.stringify(cassette, null, 2) + '\n');
    lines.push(`exported ${cassette.entries.length} entries of ${options.cache} to ${options.out} (single-file cassette)`);
  }
  if (options.har) {
    const har = await exportHar(options.cache, { creatorVersion, log });
    await writeFile(options.har, JSON.stringify(har, null, 2) + '\n');
    const synthetic = har.log.entries.filter((e) => e._mcpRewind.synthetic).length;
    lines.push(`exported ${har.log.entries.length} exchanges of ${options.cache} to ${options.har} (HAR 1.2${synthetic ? `, ${synthetic} rebuilt from distilled entries` : ''})`);
  }
  return lines.join('\n') + '\n';
}
