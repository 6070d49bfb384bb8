import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../src/main/cli/program.js';
import { buildLintProgram } from '../src/main/cli/lint-command.js';
import { buildCostProgram } from '../src/main/cli/cost-command.js';
import { buildMcpProgram } from '../src/main/cli/mcp-command.js';
import { buildServeProgram } from '../src/main/cli/serve-command.js';
import { buildVerifyProgram } from '../src/main/cli/verify-command.js';
import { buildAuthProgram } from '../src/main/cli/auth-command.js';
import { buildExportProgram } from '../src/main/cli/export-command.js';
import { buildDiffProgram } from '../src/main/cli/diff-command.js';
import { buildRedactProgram } from '../src/main/cli/redact-command.js';
import { buildUiProgram } from '../src/main/cli/ui-command.js';
import { buildAppProgram } from '../src/main/cli/app-command.js';
import { buildInterceptProgram } from '../src/main/cli/intercept-command.js';
import { PUBLISHED_ON_NPM } from '../src/shared/release.js';
import { citedPaths, fullPathExists, markdownUnder, shortPathExists, sourceFiles } from './helpers/doc-paths.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** README and every page under docs/ (docs/decisions too) */
const pages = ['README.md', ...markdownUnder(REPO, 'docs')];
/** …and the measured results, which cite sources and link pages as well */
const citingPages = [
  ...pages,
  ...readdirSync(join(REPO, 'bench/results'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `bench/results/${f}`),
];
const text = (page: string): string => readFileSync(join(REPO, page), 'utf8');
const pkg = JSON.parse(text('package.json')) as { version: string };

/** GitHub's heading anchors: lower case, punctuation but `-` and `_` dropped, spaces to `-`. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, '');
  for (const [, heading] of withoutCode.matchAll(/^#{1,6} (.+)$/gm)) {
    const base = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** Relative links of a page: `[text](target)`, outside code blocks, not http(s)/mailto. */
function relativeLinks(markdown: string): string[] {
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...withoutCode.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((t) => !/^[a-z]+:/i.test(t));
}

function longFlags(program: Command): string[] {
  return program.options
    .map((o) => o.long)
    .filter((f): f is string => f !== undefined && f !== '--version' && f !== '--help');
}

const programs: Record<string, Command> = {
  'mcp-rewind': buildProgram('0.0.0-test'),
  serve: buildServeProgram({}),
  verify: buildVerifyProgram(),
  export: buildExportProgram(),
  diff: buildDiffProgram(),
  redact: buildRedactProgram(),
  ui: buildUiProgram(),
  app: buildAppProgram(),
  ...Object.fromEntries(
    buildInterceptProgram(
      '0.0.0-test',
      () => {},
      () => {},
    ).commands.map((c) => [`intercept ${c.name()}`, c]),
  ),
  lint: buildLintProgram(),
  cost: buildCostProgram(),
  mcp: buildMcpProgram(),
  auth: buildAuthProgram({}),
};

describe('README and docs/', () => {
  it('README is a front page: the two commands first, the test command, links into docs/', () => {
    const readme = text('README.md');
    const first = /```sh\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(first?.trim().split('\n').slice(0, 2)).toEqual(['npm ci', 'npm start']);
    expect(readme).toContain('`npm test`');
    expect(
      relativeLinks(readme).filter((l) => l.startsWith('docs/') && l.endsWith('.md')).length,
    ).toBeGreaterThanOrEqual(8);
  });

  it('every relative link of every page names a file that exists, and an anchor that its headings make', () => {
    const broken: string[] = [];
    for (const page of citingPages) {
      for (const link of relativeLinks(text(page))) {
        const [file, anchor] = link.split('#');
        const target = file ? resolve(REPO, dirname(page), decodeURIComponent(file)) : join(REPO, page);
        if (!existsSync(target)) broken.push(`${page}: ${link} (no such file)`);
        else if (anchor && target.endsWith('.md') && !anchorsOf(readFileSync(target, 'utf8')).has(anchor))
          broken.push(`${page}: ${link} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('every source path a page cites names a file or folder of the tree', () => {
    const files = sourceFiles(REPO);
    const stale: string[] = [];
    let checked = 0;
    for (const page of citingPages) {
      const { full, short } = citedPaths(text(page));
      checked += full.length + short.length;
      for (const path of full) if (!fullPathExists(REPO, files, path)) stale.push(`${page}: ${path}`);
      for (const path of short) if (!shortPathExists(files, path)) stale.push(`${page}: ${path}`);
    }
    expect(checked).toBeGreaterThan(300); // the pages do cite paths: the patterns find them
    expect(stale).toEqual([]);
  });

  it("development.md's Layout names every folder under src/, at every depth, and test/, e2e/, bench/, scripts/", () => {
    const page = text('docs/development.md');
    const layout = /^## Layout\n([\s\S]*?)(?=^## )/m.exec(page)?.[1] ?? '';
    const named = new Set([...layout.matchAll(/^- `([^`]+)\/`/gm)].map((m) => m[1]));
    const folders = (dir: string): string[] =>
      readdirSync(join(REPO, dir), { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .flatMap((e) => [`${dir}/${e.name}`, ...folders(`${dir}/${e.name}`)]);
    const expected = [...folders('src'), 'test', 'e2e', 'bench', 'scripts'];
    expect(expected.length).toBeGreaterThan(50);
    expect(expected.filter((folder) => !named.has(folder))).toEqual([]);
  });

  it('every flag of every command is documented, and every flag a reference table lists exists', () => {
    const docs = pages.map(text).join('\n');
    const undocumented = Object.entries(programs).flatMap(([name, program]) =>
      longFlags(program)
        .filter((flag) => !docs.includes(`\`${flag}`) && !docs.includes(` ${flag} `) && !docs.includes(`${flag}\``))
        .map((flag) => `${name} ${flag}`),
    );
    expect(undocumented).toEqual([]);

    const known = new Set(Object.values(programs).flatMap(longFlags));
    const tableFlags = ['docs/cli.md', 'docs/rest-api.md'].flatMap((page) =>
      text(page)
        .split('\n')
        .filter((line) => line.startsWith('| `--'))
        .flatMap((line) => [...line.split('|')[1].matchAll(/`(--[a-z][a-z-]*)/g)].map((m) => m[1])),
    );
    expect(tableFlags.length).toBeGreaterThan(30);
    const builtIn = new Set(['--version', '--help']);
    expect(
      tableFlags.filter((flag) => !known.has(flag) && !builtIn.has(flag) && !known.has(flag.replace(/^--no-/, '--'))),
    ).toEqual([]);
  });

  it('pins its own version wherever it names one, and advertises no npx of an unpublished version in a code block', () => {
    const all = pages.map(text).join('\n');
    const pinned = [
      ...all.matchAll(/mcp-rewind@(\d[^\s"'`)]*)/g),
      ...all.matchAll(/mcp-rewind-(\d[^\s"'`]*)\.tgz/g),
    ].map((m) => m[1]);
    expect(pinned.length).toBeGreaterThanOrEqual(3);
    expect(new Set(pinned)).toEqual(new Set([pkg.version]));
    if (!PUBLISHED_ON_NPM) {
      const blocks = [...all.matchAll(/```\w*\n([\s\S]*?)```/g)].map((m) => m[1]);
      expect(blocks.filter((b) => /npx (-y )?mcp-rewind@/.test(b))).toEqual([]);
      expect(text('README.md')).toMatch(/not on npm yet/);
    }
  });

  it('says nothing about the machines the project was built on', () => {
    for (const page of pages)
      expect(text(page), page).not.toMatch(/these machines|this project's (CI )?machines|the CI machines/i);
  });
});
