import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { lintSource } from '@secretlint/core';
import { creator as recommended } from '@secretlint/secretlint-rule-preset-recommend';
import { REDACTED } from '../redact.js';
import { PRESET_RULE_PREFIX, secretRuleOf } from '../../../shared/gate/secret-rules.js';

/**
 * `mcp-rewind redact --scan`: secrets left in a cassette — every JSON file of a folder (distilled entries and debug
 * files alike) or one file (a single-file cassette, a HAR). Each string is checked with secretlint's recommended
 * preset and our three rules (shared/gate/secret-rules.ts); a finding names the file, the JSON path and the rule,
 * and shows at most the first four characters of what it found.
 */

export interface SecretFinding {
  rule: string;
  file: string;
  /** `$.result.content[0].text`, `$.headers.authorization` */
  path: string;
  /** what was found, masked: `ghp_… (40 chars)` */
  found: string;
}

export interface SecretScan {
  files: number;
  findings: SecretFinding[];
  /** files not read, with why */
  skipped: string[];
}

/** A file larger than this is not read (said so): a cassette file that size is not a recording to scan whole. */
const MAX_FILE_BYTES = 64 * 1024 * 1024;
const JWT = /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g;
const BEARER = /\bBearer\s+[A-Za-z0-9._~+/-]{12,}=*/g;
/** keys that name a credential (lower-cased, `-` and `_` dropped): a header or a field that carries one */
const CREDENTIAL_KEYS = new Set([
  'authorization',
  'proxyauthorization',
  'cookie',
  'setcookie',
  'xapikey',
  'apikey',
  'xauthtoken',
  'password',
  'passwd',
  'clientsecret',
  'accesstoken',
  'refreshtoken',
  'idtoken',
  'privatekey',
  'secret',
]);
/** by rule: a vendor's pattern first, then a JWT, then a bearer, then the field's name */
const PRIORITY = (rule: string): number =>
  rule === 'secret.jwt' ? 1 : rule === 'secret.bearer' ? 2 : rule === 'secret.credential-field' ? 3 : 0;

interface Leaf {
  path: string;
  key?: string;
  value: string;
}
interface Match {
  rule: string;
  leaf: number;
  start: number;
  end: number;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const step = (path: string, key: string | number): string =>
  typeof key === 'number'
    ? `${path}[${key}]`
    : IDENTIFIER.test(key)
      ? `${path}.${key}`
      : `${path}[${JSON.stringify(key)}]`;

/** Every string of a JSON value with its path (and the key it is the value of). */
function leavesOf(value: unknown, path = '$', key?: string, out: Leaf[] = []): Leaf[] {
  if (typeof value === 'string') out.push({ path, key, value });
  else if (Array.isArray(value)) value.forEach((v, i) => leavesOf(v, step(path, i), key, out));
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) leavesOf(v, step(path, k), k, out);
  return out;
}

export const maskSecret = (secret: string): string =>
  `${secret.length >= 16 ? secret.slice(0, 4) : ''}… (${secret.length} chars)`;

/** secretlint's preset over all the strings at once (one text, a blank line between): matches mapped back. */
async function presetMatches(leaves: readonly Leaf[]): Promise<Match[]> {
  const starts: number[] = [];
  let at = 0;
  for (const leaf of leaves) {
    starts.push(at);
    at += leaf.value.length + 2;
  }
  const content = leaves.map((l) => l.value).join('\n\n');
  if (!content.trim()) return [];
  const result = await lintSource({
    source: { filePath: 'cassette.txt', content, contentType: 'text' },
    options: { config: { rules: [{ id: recommended.meta.id, rule: recommended }] } },
  });
  const out: Match[] = [];
  for (const m of result.messages) {
    if (!m.ruleId.startsWith(PRESET_RULE_PREFIX)) continue;
    const [from, to] = m.range;
    let i = starts.length - 1;
    while (i > 0 && starts[i] > from) i--;
    if (to > starts[i] + leaves[i].value.length) continue; // spans two strings: not one secret
    out.push({ rule: secretRuleOf(m.ruleId), leaf: i, start: from - starts[i], end: to - starts[i] });
  }
  return out;
}

function ownMatches(leaves: readonly Leaf[]): Match[] {
  const out: Match[] = [];
  leaves.forEach((leaf, i) => {
    for (const [rule, re] of [
      ['secret.jwt', JWT],
      ['secret.bearer', BEARER],
    ] as const)
      for (const m of leaf.value.matchAll(re)) out.push({ rule, leaf: i, start: m.index, end: m.index + m[0].length });
    const named = leaf.key !== undefined && CREDENTIAL_KEYS.has(leaf.key.toLowerCase().replace(/[-_]/g, ''));
    if (named && leaf.value.trim() && leaf.value !== REDACTED)
      out.push({ rule: 'secret.credential-field', leaf: i, start: 0, end: leaf.value.length });
  });
  return out;
}

/** One finding per secret: where two rules found the same text, the more specific one. */
function keepDistinct(matches: Match[]): Match[] {
  const kept: Match[] = [];
  for (const m of [...matches].sort((x, y) => x.leaf - y.leaf || PRIORITY(x.rule) - PRIORITY(y.rule)))
    if (!kept.some((k) => k.leaf === m.leaf && k.start < m.end && m.start < k.end)) kept.push(m);
  return kept.sort((x, y) => x.leaf - y.leaf || x.start - y.start);
}

/** The secrets in one file's text (JSON: each string on its path; anything else: the whole text at `$`). */
export async function scanText(file: string, text: string): Promise<SecretFinding[]> {
  let leaves: Leaf[];
  try {
    leaves = leavesOf(JSON.parse(text));
  } catch {
    leaves = [{ path: '$', value: text }];
  }
  const matches = keepDistinct([...(await presetMatches(leaves)), ...ownMatches(leaves)]);
  return matches.map((m) => ({
    rule: m.rule,
    file,
    path: leaves[m.leaf].path,
    found: maskSecret(leaves[m.leaf].value.slice(m.start, m.end)),
  }));
}

/** Scans a cassette folder (its JSON files, in name order) or one file. Throws when the path cannot be read. */
export async function scanForSecrets(target: string): Promise<SecretScan> {
  const info = await stat(target);
  const files = info.isDirectory()
    ? (await readdir(target, { withFileTypes: true }))
        .filter((d) => d.isFile() && d.name.endsWith('.json'))
        .map((d) => join(target, d.name))
        .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
    : [target];
  const scan: SecretScan = { files: 0, findings: [], skipped: [] };
  for (const file of files) {
    const size = (await stat(file)).size;
    if (size > MAX_FILE_BYTES) {
      scan.skipped.push(`${file}: ${size} bytes, more than ${MAX_FILE_BYTES}`);
      continue;
    }
    scan.files++;
    scan.findings.push(...(await scanText(file, await readFile(file, 'utf8'))));
  }
  return scan;
}
