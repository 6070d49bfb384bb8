import type { z } from 'zod';
import { ProxyConfigSchema, type ProxyConfig } from './api.js';
import { isLive } from './modes.js';
import { BROWSER_ORIGIN_HINT } from './origins.js';
import { REPLAY_TIMING_HINT } from './replay-timing.js';
import { MAX_UPSTREAM_MAX_TIME_S, MAX_UPSTREAM_TIMEOUT_S } from './upstream-limits.js';

/**
 * A proxy's configuration in the words of the New proxy form: every problem is reported under the form's own field
 * label ("Upstream URL: not a URL"), never under the API's names (upstreamUrl, cacheDir). Used by the form to show a
 * problem beside its field before anything is sent, and by the engine for whatever reaches it anyway.
 */
export const PROXY_FIELD_LABELS = {
  name: 'Name',
  mode: 'Mode',
  upstreamUrl: 'Upstream URL',
  upstreamCommand: 'stdio command',
  cacheDir: 'Cassette folder',
  port: 'Port',
  rules: 'Rules',
  replayTiming: 'Replay timing',
  strict: 'Strict',
  allowedOrigins: 'Browser origins',
  upstreamTimeoutS: 'Upstream timeout',
  upstreamMaxTimeS: 'Upstream max time',
  oauth: 'OAuth client ID',
} as const;
export type ProxyField = keyof typeof PROXY_FIELD_LABELS;

/** Problems by field; `form` holds what belongs to no single field. */
export type ProxyIssues = Partial<Record<ProxyField | 'form', string>>;

function urlProblem(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') return 'give the upstream server’s URL';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'not a URL (e.g. http://127.0.0.1:3000/mcp)';
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? 'not a valid http(s) URL' : `must start with http:// or https:// (not ${url.protocol}//)`;
}

function fieldMessage(field: ProxyField, issue: z.core.$ZodIssue, input: Record<string, unknown>): string {
  switch (field) {
    case 'upstreamUrl':
      return urlProblem(input.upstreamUrl);
    case 'port':
      return 'a whole number from 0 to 65535 (empty or 0: any free port)';
    case 'name':
      return typeof input.name === 'string' && input.name.length > 100 ? 'at most 100 characters' : 'give a name, or leave it empty';
    case 'mode':
      return 'record, replay, hybrid or proxy-only';
    case 'upstreamCommand':
      return 'a command line of at most 4,000 characters';
    case 'cacheDir':
      return 'give a folder, or leave it empty for the default one';
    case 'replayTiming':
      return REPLAY_TIMING_HINT;
    case 'strict':
      return 'on or off';
    case 'allowedOrigins':
      return issue.code === 'too_big' ? 'at most 20 origins' : `each one ${BROWSER_ORIGIN_HINT}`;
    case 'upstreamTimeoutS':
      return `seconds from 0 (no limit) to ${MAX_UPSTREAM_TIMEOUT_S}`;
    case 'upstreamMaxTimeS':
      return `seconds from 0 (no limit) to ${MAX_UPSTREAM_MAX_TIME_S}`;
    case 'oauth':
      return 'a client id of at most 1,000 characters, or leave it empty (mcp-rewind then registers itself)';
    default:
      return issue.message;
  }
}

/**
 * Checks a proxy configuration as the engine will: its shape (ProxyConfigSchema) and what the fields need together
 * (a live mode needs an upstream URL or a command, not both). An empty cassette folder is fine: the default is used.
 */
export function proxyConfigIssues(input: unknown): ProxyIssues {
  const issues: ProxyIssues = {};
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return { form: 'expected the proxy’s settings as an object' };
  const fields = input as Record<string, unknown>;
  const parsed = ProxyConfigSchema.safeParse(input);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const head = issue.path[0];
      if (typeof head === 'string' && head in PROXY_FIELD_LABELS) issues[head as ProxyField] ??= fieldMessage(head as ProxyField, issue, fields);
      else if (issue.code === 'unrecognized_keys') issues.form ??= `unknown setting${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}`;
      else issues.form ??= issue.message;
    }
    return issues;
  }
  const config = parsed.data;
  if (isLive(config.mode) && !config.upstreamUrl && !config.upstreamCommand)
    issues.upstreamUrl = `give the upstream server’s URL, or a stdio command, in ${config.mode} mode`;
  if (config.upstreamUrl && config.upstreamCommand) issues.upstreamCommand = 'give either an Upstream URL or a stdio command, not both';
  return issues;
}

/** One line naming each problem by its field label: "Upstream URL: not a URL; Port: …". */
export function describeProxyIssues(issues: ProxyIssues): string {
  return Object.entries(issues)
    .map(([field, message]) => (field === 'form' ? message : `${PROXY_FIELD_LABELS[field as ProxyField]}: ${message}`))
    .join('; ');
}

/** The configuration, or an Error naming the fields (for the engine's proxies.create). */
export function checkProxyConfig(input: unknown): ProxyConfig {
  const issues = proxyConfigIssues(input);
  if (Object.keys(issues).length > 0) throw new Error(describeProxyIssues(issues));
  return ProxyConfigSchema.parse(input);
}
