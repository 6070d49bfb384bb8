import type { CommandInput } from '../../../shared/api.js';
import { MODE_TRAITS, type Mode } from '../../../shared/modes.js';
import {
  fieldProblem,
  PROXY_FIELD_LABELS,
  proxyConfigIssues,
  type ProxyField,
  type ProxyIssues,
} from '../../../shared/proxy-config.js';

/**
 * The New proxy form as plain strings (what its inputs hold), turned into a proxies.create input and checked by the
 * one proxy configuration schema (src/shared/proxy-config.ts): every problem the form shows is one of its issues.
 */
export interface ProxyDraft {
  name: string;
  mode: Mode;
  /** the upstream is given as a URL or as a stdio command (one field shown at a time) */
  source: 'url' | 'command';
  upstreamUrl: string;
  upstreamCommand: string;
  cacheDir: string;
  port: string;
  replayTiming: string;
  /** a miss is an error naming the closest recorded key (where the mode answers from the cassette alone) */
  strict: boolean;
  /** origins separated by spaces or commas */
  allowedOrigins: string;
  /** seconds, as typed (empty: the default) */
  upstreamTimeoutS: string;
  upstreamMaxTimeS: string;
  /** a client registered with the upstream's authorization server (empty: dynamic registration) */
  oauthClientId: string;
}

export const EMPTY_DRAFT: ProxyDraft = {
  name: '',
  mode: 'record',
  source: 'url',
  upstreamUrl: '',
  upstreamCommand: '',
  cacheDir: '',
  port: '',
  replayTiming: 'none',
  strict: false,
  allowedOrigins: '',
  upstreamTimeoutS: '',
  upstreamMaxTimeS: '',
  oauthClientId: '',
};

export interface DraftParts {
  /** the upstream (a URL or a command) and its limits */
  upstream: boolean;
  cassette: boolean;
  /** the cassette must exist (it is only read) */
  existingCassette: boolean;
  replayTiming: boolean;
  strict: boolean;
}

/**
 * The parts of the form a mode has (src/shared/modes.ts): an upstream and its limits where it forwards, a cassette
 * folder where it has one (that must exist where it only reads it), a replay timing where it replays, Strict where it
 * answers from the cassette alone (elsewhere nothing misses).
 */
export function draftParts(mode: Mode): DraftParts {
  const { forwards, usesCassette, needsExistingCassette, replays, cassetteOnly } = MODE_TRAITS[mode];
  return {
    upstream: forwards,
    cassette: usesCassette,
    existingCassette: needsExistingCassette,
    replayTiming: replays,
    strict: cassetteOnly,
  };
}

type SecondsKey = 'upstreamTimeoutS' | 'upstreamMaxTimeS';

/** The upstream limits as numbers, and the schema's words for a text that is not one. */
function draftLimits(
  d: ProxyDraft,
  shown: boolean,
): { limits: Partial<Record<SecondsKey, number>>; issues: ProxyIssues } {
  const limits: Partial<Record<SecondsKey, number>> = {};
  const issues: ProxyIssues = {};
  for (const key of ['upstreamTimeoutS', 'upstreamMaxTimeS'] as const) {
    const text = d[key].trim();
    if (!shown || !text) continue;
    if (/^\d+(\.\d+)?$/.test(text)) limits[key] = Number(text);
    else issues[key] = fieldProblem(key, NaN);
  }
  return { limits, issues };
}

/** The draft as proxies.create input, with the schema's problems by field (a missing upstream under the source shown). */
export function draftConfig(d: ProxyDraft): { config: CommandInput<'proxies.create'>; issues: ProxyIssues } {
  const parts = draftParts(d.mode);
  const port = d.port.trim();
  const portProblem = port && !/^\d+$/.test(port) ? fieldProblem('port', NaN) : undefined;
  const timing = d.replayTiming.trim();
  const origins = d.allowedOrigins.split(/[\s,]+/).filter(Boolean);
  const seconds = draftLimits(d, parts.upstream);
  const config: CommandInput<'proxies.create'> = {
    mode: d.mode,
    ...(d.name.trim() ? { name: d.name.trim() } : {}),
    ...(parts.upstream && d.source === 'url' && d.upstreamUrl.trim() ? { upstreamUrl: d.upstreamUrl.trim() } : {}),
    ...(parts.upstream && d.source === 'command' && d.upstreamCommand.trim()
      ? { upstreamCommand: d.upstreamCommand.trim() }
      : {}),
    ...(parts.cassette && d.cacheDir.trim() ? { cacheDir: d.cacheDir.trim() } : {}),
    ...(port && !portProblem ? { port: Number(port) } : {}),
    ...(parts.replayTiming && timing && timing !== 'none' ? { replayTiming: timing } : {}),
    ...(parts.strict && d.strict ? { strict: true } : {}),
    ...(origins.length ? { allowedOrigins: origins } : {}),
    ...seconds.limits,
    ...(parts.upstream && d.source === 'url' && d.oauthClientId.trim()
      ? { oauth: { clientId: d.oauthClientId.trim() } }
      : {}),
  };
  const issues: ProxyIssues = {
    ...proxyConfigIssues(config),
    ...seconds.issues,
    ...(portProblem ? { port: portProblem } : {}),
  };
  if (issues.upstreamUrl && d.source === 'command') {
    issues.upstreamCommand = issues.upstreamUrl;
    delete issues.upstreamUrl;
  }
  return { config, issues };
}

/** The field an engine message names ("Upstream URL …: …"), so that it shows beside that field. */
export function fieldOf(message: string): ProxyField | undefined {
  const entries = Object.entries(PROXY_FIELD_LABELS) as Array<[ProxyField, string]>;
  return entries.find(([, label]) => message.startsWith(`${label}:`) || message.startsWith(`${label} `))?.[0];
}
