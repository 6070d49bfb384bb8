import { Command, Option } from 'commander';
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { verifyCassette, type KeyVerdict, type VerifyOptions, type VerifyReport } from '../engine/verify/verify.js';
import { commandSpec } from '../engine/upstream/command.js';
import { openUpstream } from '../engine/upstream/open.js';
import { UsageError } from '../engine/errors.js';
import { oneLine } from '../../shared/terminal-text.js';
import { parseFieldPattern } from '../../shared/json-path.js';
import { writeAtomic } from '../engine/fs/atomic-write.js';
import { CredentialStore, hasOwnCredentials } from '../engine/upstream/oauth/credentials.js';
import { UpstreamSignIn } from '../engine/upstream/oauth/sign-in.js';
import { userDataDir } from '../web/user-data.js';
import { collect, resultHashIgnoreOption } from './repeatable.js';

/** `mcp-rewind verify`: re-sends every recorded request to the live server and reports drift. */
export function buildVerifyProgram(): Command {
  return new Command('mcp-rewind verify')
    .description('Send every recorded request again to the live server and report drift (exit 1 on drift)')
    .helpOption('-h, --help', 'show this help')
    .option('-c, --cache <dir>', 'cassette folder (or single-file cassette)', './cache')
    .option('-u, --url <url>', 'the live MCP server (Streamable HTTP)')
    .option('--upstream-command <command>', 'the live MCP server as a command speaking MCP on stdio (instead of --url)')
    .option('--result-hash-path <path>', 'dot path into a tool result used as hash input instead of the whole result')
    .addOption(resultHashIgnoreOption())
    .addOption(
      new Option(
        '--match-ignore <path>',
        'dot path into the request params (e.g. arguments.timestamp) that does not tell requests apart; repeatable',
      ).argParser(collect),
    )
    .addOption(
      new Option(
        '--ignore-fields <pattern>',
        'field left out of every comparison, at any depth (e.g. "**.timestamp", "result.content[*].annotations"); repeatable',
      ).argParser(collect),
    )
    .option(
      '--update',
      're-record the drifted entries in place (a folder cassette; the old files go to a backup folder beside it)',
    )
    .option('--junit <file>', 'write a JUnit XML report (one test case per key)')
    .option('--timeout <seconds>', 'per-request timeout', '30')
    .option(
      '--no-oauth',
      "do not use the sign-in kept for --url (mcp-rewind auth login <url>): a 401 is the server's answer",
    );
}

export interface VerifyCliOptions {
  cache: string;
  url?: string;
  upstreamCommand?: string;
  junit?: string;
  /** use the sign-in kept in the data folder for --url (default true) */
  oauth?: boolean;
  engine: Omit<VerifyOptions, 'store' | 'openSession'>;
}

/** The `--ignore-fields` patterns (verify, diff), each checked: a pattern that cannot be read is a usage error. */
export function ignoreFieldsOption(value: unknown): string[] {
  const patterns = (value as string[] | undefined) ?? [];
  for (const pattern of patterns) {
    try {
      parseFieldPattern(pattern);
    } catch (error) {
      throw new UsageError(`--ignore-fields: ${(error as Error).message}`);
    }
  }
  return patterns;
}

export function toVerifyOptions(raw: Record<string, unknown>): VerifyCliOptions {
  const url = raw.url as string | undefined;
  const upstreamCommand = raw.upstreamCommand as string | undefined;
  if (url && upstreamCommand) throw new UsageError('--url and --upstream-command cannot be combined');
  if (!url && !upstreamCommand)
    throw new UsageError('--url or --upstream-command is required: the live server to verify against');
  if (url) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new UsageError(`--url must be a valid URL, got "${url}"`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      throw new UsageError(`--url must be an http:// or https:// URL, got "${url}"`);
  }
  const cache = String(raw.cache);
  if (!existsSync(cache)) throw new UsageError(`--cache ${cache} does not exist`);
  if (raw.update && !statSync(cache).isDirectory())
    throw new UsageError(`--update needs a cassette folder: ${cache} is a single-file cassette, which is read-only`);
  const ignoreFields = ignoreFieldsOption(raw.ignoreFields);
  const timeout = Number(raw.timeout);
  if (!Number.isFinite(timeout) || timeout <= 0 || timeout > 86_400)
    throw new UsageError(`--timeout must be a number of seconds between 0 and 86400, got "${String(raw.timeout)}"`);
  return {
    cache,
    url,
    upstreamCommand,
    junit: raw.junit as string | undefined,
    oauth: raw.oauth !== false,
    engine: {
      dir: cache,
      upstreamUrl: url,
      hashOptions: {
        path: raw.resultHashPath as string | undefined,
        ignore: raw.resultHashIgnore as string[] | undefined,
      },
      matchIgnore: raw.matchIgnore as string[] | undefined,
      ignoreFields,
      update: raw.update === true,
      timeoutMs: timeout * 1000,
    },
  };
}

const LABEL: Record<KeyVerdict['status'], string> = { ok: 'ok', drift: 'DRIFT', info: 'info', skipped: 'skip' };

/** The key as the report names it: with its revision when it was recorded in a 2026-07-28 one. */
const keyLabel = (r: KeyVerdict): string => (r.revision ? `${r.key} (${r.revision})` : r.key);

/** The readable report: a line per key (a drift's changed values below it, each with its JSON path), then a summary. */
export function formatVerifyReport(report: VerifyReport, cache: string): string {
  const lines = [`mcp-rewind verify — ${cache} against ${report.upstream}`];
  for (const r of report.results) {
    lines.push(`  ${LABEL[r.status].padEnd(5)}  ${oneLine(keyLabel(r))}${r.reason ? `  ${oneLine(r.reason)}` : ''}`);
    for (const change of r.changes ?? []) lines.push(`           ${oneLine(change)}`);
  }
  const { ok, drift, info, skipped } = report.counts;
  const total = report.results.length;
  lines.push(
    `${total} key${total === 1 ? '' : 's'}: ${ok} ok, ${drift} drift, ${info} info, ${skipped} skipped — ${drift ? 'DRIFT' : 'no drift'}`,
  );
  const updated = report.updated;
  if (updated) {
    const removed = updated.removed.length
      ? ` (${updated.removed.length} further entr${updated.removed.length === 1 ? 'y' : 'ies'} of those keys removed)`
      : '';
    lines.push(
      `updated: ${updated.rewritten.length} drifted key${updated.rewritten.length === 1 ? '' : 's'} re-recorded${removed}; the old files are in ${oneLine(updated.backup)}`,
    );
  }
  return lines.join('\n') + '\n';
}

/** Did --update re-record every drifted key (the cassette now agrees with the server)? */
const allUpdated = (report: VerifyReport): boolean =>
  report.updated !== undefined && report.updated.rewritten.length === report.counts.drift;

/** Text safe inside XML attributes and elements: escaped, and without the characters XML 1.0 cannot hold. */
export function xmlEscape(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** JUnit XML: one testsuite "mcp-rewind verify", one testcase per key, <failure> on drift, <skipped> when not sent. */
export function junitXml(report: VerifyReport, timestamp = new Date()): string {
  const seconds = (ms: number): string => (ms / 1000).toFixed(3);
  const total = report.results.reduce((t, r) => t + r.durationMs, 0);
  const suite = `name="mcp-rewind verify" tests="${report.results.length}" failures="${report.counts.drift}" errors="0" skipped="${report.counts.skipped}" time="${seconds(total)}"`;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites ${suite}>`,
    `  <testsuite ${suite} timestamp="${timestamp.toISOString().slice(0, 19)}" hostname="${xmlEscape(report.upstream)}">`,
  ];
  for (const r of report.results) {
    const open = `    <testcase name="${xmlEscape(keyLabel(r))}" classname="${xmlEscape(`mcp-rewind.verify.${r.method}`)}" time="${seconds(r.durationMs)}"`;
    const reason = xmlEscape(r.reason ?? '');
    if (r.status === 'drift')
      lines.push(
        `${open}>`,
        `      <failure message="${xmlEscape(failureMessage(r))}" type="drift">${xmlEscape(failureText(r))}</failure>`,
        '    </testcase>',
      );
    else if (r.status === 'skipped') lines.push(`${open}>`, `      <skipped message="${reason}"/>`, '    </testcase>');
    else if (r.status === 'info') lines.push(`${open}>`, `      <system-out>${reason}</system-out>`, '    </testcase>');
    else lines.push(`${open}/>`);
  }
  lines.push('  </testsuite>', '</testsuites>');
  return lines.join('\n') + '\n';
}

/** A drift's one-line message: the reason and its first change (`result changed: $.result.x: 1 → 2 (+2 more)`). */
function failureMessage(r: KeyVerdict): string {
  const [first, ...rest] = r.changes ?? [];
  return first === undefined
    ? (r.reason ?? '')
    : `${r.reason}: ${first}${rest.length ? ` (+${rest.length} more)` : ''}`;
}

/** A drift's full text: the reason, then every change on a line of its own. */
const failureText = (r: KeyVerdict): string => [r.reason ?? '', ...(r.changes ?? [])].join('\n');

/** Runs verify, prints the report (and writes --junit); resolves with the exit status: 0 no drift (or all of it re-recorded by --update), 1 drift. */
export async function runVerify(
  options: VerifyCliOptions,
  out: (text: string) => void,
  engine: Partial<VerifyOptions> = {},
  log: (line: string) => void = () => {},
): Promise<number> {
  // a stdio server is opened as the proxy opens one (bridged onto Streamable HTTP); verify's own session is the probe
  const upstream = options.upstreamCommand
    ? await openUpstream(commandSpec(options.upstreamCommand), {
        log: (line, level) => (level === 'info' ? undefined : log(line)),
        probe: false,
      })
    : undefined;
  const label = upstream ? `${options.upstreamCommand} (stdio)` : undefined;
  // an OAuth-protected server: the sign-in kept in the data folder (refreshed when it must be; never a browser here)
  const signsIn = options.url !== undefined && options.oauth !== false && !hasOwnCredentials(options.url);
  const upstreamAuth = signsIn
    ? new UpstreamSignIn(options.url as string, { store: new CredentialStore(userDataDir()) })
    : undefined;
  const live = upstream ? { upstreamUrl: upstream.url, upstreamLabel: label, command: true } : { upstreamAuth };
  const report = await verifyCassette({ log, ...options.engine, ...live, ...engine }).finally(() => upstream?.close());
  out(formatVerifyReport(report, options.cache));
  if (options.junit) await writeAtomic(dirname(resolve(options.junit)), basename(options.junit), junitXml(report));
  return report.drift && !allUpdated(report) ? 1 : 0;
}
