import { Command } from 'commander';
import { existsSync } from 'node:fs';
import { writeHarExport, writeSingleFileExport } from '../engine/cassette/export.js';
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

/** Writes the exports (streamed: memory does not grow with the cassette); resolves with the lines to print. */
export async function runExport(
  options: ExportCliOptions,
  creatorVersion: string,
  log?: (line: string) => void,
): Promise<string> {
  const lines: string[] = [];
  if (options.out) {
    const { entries } = await writeSingleFileExport(options.cache, options.out, { log });
    lines.push(`exported ${entries} entries of ${options.cache} to ${options.out} (single-file cassette)`);
  }
  if (options.har) {
    const { entries, synthetic } = await writeHarExport(options.cache, options.har, { creatorVersion, log });
    lines.push(
      `exported ${entries} exchanges of ${options.cache} to ${options.har} (HAR 1.2${synthetic ? `, ${synthetic} rebuilt from distilled entries` : ''})`,
    );
  }
  return lines.join('\n') + '\n';
}
