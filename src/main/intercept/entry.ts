import { fileURLToPath } from 'node:url';
import type { ClientId, ServerTransport } from '../../shared/intercept.js';
import { isSecretHeader, redactHeaders, redactUrl, REDACTED } from '../engine/redact.js';

/**
 * One server entry of a client's config, read as a transport, and what a wrap changes in it. The field names differ
 * by client (url / serverUrl for Windsurf / httpUrl for Gemini's Streamable HTTP; http_headers in Codex) and are kept:
 * a wrap changes only `command` and `args` (stdio) or the URL field (HTTP); `env`, `cwd`, headers and every other
 * field stay as they were.
 */

export type Entry = Record<string, unknown>;

const URL_KEYS = ['httpUrl', 'serverUrl', 'url'] as const;

const strings = (value: unknown): string[] | undefined =>
  Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : undefined;
const stringMap = (value: unknown): Record<string, string> | undefined =>
  value &&
  typeof value === 'object' &&
  !Array.isArray(value) &&
  Object.values(value).every((v) => typeof v === 'string')
    ? (value as Record<string, string>)
    : undefined;

/** The field that holds an HTTP entry's URL. */
export const urlKey = (entry: Entry): (typeof URL_KEYS)[number] | undefined =>
  URL_KEYS.find((k) => typeof entry[k] === 'string');

/** The entry as a transport; why not, when it is neither (a string instead of an object, no command nor URL…). */
export function transportOf(entry: unknown, client?: ClientId): ServerTransport | string {
  if (!entry || typeof entry !== 'object' || Array.isArray(entry)) return 'not an object';
  const e = entry as Entry;
  if (typeof e.command === 'string') {
    const args = e.args === undefined ? [] : strings(e.args);
    if (!args) return '"args" is not a list of strings';
    const env = stringMap(e.env);
    return {
      kind: 'stdio',
      command: e.command,
      args,
      ...(env ? { env } : {}),
      ...(typeof e.cwd === 'string' ? { cwd: e.cwd } : {}),
    };
  }
  const key = urlKey(e);
  if (!key) return 'neither "command" nor a URL';
  const headers = stringMap(e.headers) ?? stringMap(e.http_headers);
  // legacy HTTP+SSE: a `type: "sse"` entry, or Gemini's `url` (its Streamable HTTP field is httpUrl)
  const sse = e.type === 'sse' || (client === 'gemini' && key === 'url');
  return { kind: 'http', url: e[key] as string, ...(headers ? { headers } : {}), ...(sse ? { sse: true } : {}) };
}

/** How to start mcp-rewind itself: this installation (node + its bin, absolute paths) or a pinned npx package. */
export interface Launcher {
  command: string;
  args: string[];
}

export const BIN = fileURLToPath(new URL('../../../bin/mcp-rewind.js', import.meta.url));

export function launcherFor(kind: 'node' | 'npx', version: string): Launcher {
  return kind === 'npx'
    ? { command: 'npx', args: ['-y', `mcp-rewind@${version}`] }
    : { command: process.execPath, args: [BIN] };
}

/**
 * The args of a wrapped stdio entry: mcp-rewind in attach mode (the app's data folder named: the agent's environment
 * may not say it), then `--` and the original command and args as they were, word for word.
 */
export function wrappedArgs(
  launcher: Launcher,
  target: string,
  original: { command: string; args: string[] },
  own: { dataDir: string; record?: string },
): string[] {
  const record = own.record ? ['--record', own.record] : [];
  return [
    ...launcher.args,
    '--stdio',
    '--attach',
    '--attach-name',
    target,
    '--data-dir',
    own.dataDir,
    ...record,
    '--',
    original.command,
    ...original.args,
  ];
}

export interface WrappedStdio {
  /** the attach name it was given (`client:server`) */
  name?: string;
  record?: string;
  original: { command: string; args: string[] };
}

/** A stdio entry that runs mcp-rewind in attach mode: what it runs in front of (read back from its own args). */
export function unwrapStdio(transport: ServerTransport): WrappedStdio | undefined {
  if (transport.kind !== 'stdio') return undefined;
  const { command, args } = transport;
  const split = args.indexOf('--');
  if (split < 0 || split + 1 >= args.length) return undefined;
  const own = args.slice(0, split);
  if (!own.includes('--attach') || ![command, ...own].some((word) => /mcp-rewind/.test(word))) return undefined;
  const valueOf = (flag: string): string | undefined => (own.includes(flag) ? own[own.indexOf(flag) + 1] : undefined);
  return {
    name: valueOf('--attach-name'),
    record: valueOf('--record'),
    original: { command: args[split + 1], args: args.slice(split + 2) },
  };
}

/** The proxy URL an HTTP entry gets: the app's proxy on a fixed port, at /sse for a legacy SSE client. */
export const proxyUrl = (port: number, sse: boolean | undefined): string =>
  `http://127.0.0.1:${port}/${sse ? 'sse' : 'mcp'}`;

/** The port of a URL that points at a local proxy, if it does. */
export function localProxyPort(url: string): number | undefined {
  const m = /^http:\/\/127\.0\.0\.1:(\d+)\/(mcp|sse)$/.exec(url);
  return m ? Number(m[1]) : undefined;
}

/** A transport as listed (the CLI's output, the app's view): credential-like headers, env values and URL parts redacted. */
export function redactedTransport(t: ServerTransport): ServerTransport {
  if (t.kind === 'http')
    return {
      ...t,
      url: redactUrl(t.url),
      ...(t.headers ? { headers: redactHeaders(t.headers) as Record<string, string> } : {}),
    };
  if (!t.env) return t;
  return {
    ...t,
    env: Object.fromEntries(
      Object.entries(t.env).map(([name, value]) => [name, isSecretHeader(name) ? REDACTED : value]),
    ),
  };
}

/** A transport as the data folder's record keeps it: what a restore needs, never env values or headers. */
export function recordedTransport(t: ServerTransport): ServerTransport {
  return t.kind === 'http'
    ? { kind: 'http', url: t.url, ...(t.sse ? { sse: true } : {}) }
    : { kind: 'stdio', command: t.command, args: t.args, ...(t.cwd ? { cwd: t.cwd } : {}) };
}
