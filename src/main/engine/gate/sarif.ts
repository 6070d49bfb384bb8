import { createRequire } from 'node:module';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { GateRule, Level } from '../../../shared/gate/levels.js';

/**
 * SARIF 2.1.0 (OASIS), the format code scanning reads (GitHub's upload-sarif, GitLab, Azure DevOps): one run whose
 * driver lists every rule the command can report, stable ids first-class, and one result per finding pointing at the
 * cassette file it rests on — the JSON path inside it as a logical location, since a cassette has no lines to point
 * at that would survive a re-record.
 */

export const SARIF_SCHEMA =
  'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';

export interface GateResult {
  ruleId: string;
  level: Level;
  message: string;
  /** the file (absolute or relative to the working folder) */
  file: string;
  /** where inside it, in words a reader can follow: a JSON path (`$.result.tools[0]`), a tool's field, a key */
  where?: string;
}

/**
 * A file as a SARIF artifact URI: relative to the working folder (where code scanning's checkout is) with `/`
 * separators and each segment percent-encoded (`1%20initialize.json`), else a file: URL.
 */
export function artifactUri(file: string, cwd = process.cwd()): string {
  const rel = relative(cwd, resolve(cwd, file));
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return pathToFileURL(resolve(cwd, file)).href;
  return rel.split(sep).map(encodeURIComponent).join('/');
}

function version(): string {
  try {
    return (createRequire(import.meta.url)('mcp-rewind/package.json') as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

/** The SARIF log of one command's run: its rules, and its results in order. */
export function sarifLog(command: string, rules: readonly GateRule[], results: readonly GateResult[]): object {
  const index = new Map(rules.map((r, i) => [r.id, i]));
  return {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'mcp-rewind',
            fullName: `mcp-rewind ${command}`,
            version: version(),
            rules: rules.map((r) => ({
              id: r.id,
              shortDescription: { text: r.title },
              defaultConfiguration: { level: r.level },
            })),
          },
        },
        columnKind: 'unicodeCodePoints',
        results: results.map((r) => ({
          ruleId: r.ruleId,
          ...(index.has(r.ruleId) ? { ruleIndex: index.get(r.ruleId) } : {}),
          level: r.level,
          message: { text: r.message },
          locations: [
            {
              physicalLocation: { artifactLocation: { uri: artifactUri(r.file) } },
              ...(r.where ? { logicalLocations: [{ fullyQualifiedName: r.where, kind: 'member' }] } : {}),
            },
          ],
        })),
      },
    ],
  };
}
