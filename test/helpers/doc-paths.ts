/** The repository paths a markdown page cites, and whether each names something in the tree (test/docs.test.ts). */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Folders whose files docs cite; a cited path is checked against what is in them. */
const SOURCE_ROOTS = ['src', 'test', 'e2e', 'bench', 'scripts', 'bin'];
const SKIPPED = new Set(['node_modules', '.git', 'dist', 'out', 'test-results']);
/** A full path: one of these folders, then a path (globs, braces and <placeholders> allowed). */
const FULL = /(?<![\w./@-])((?:src|test|e2e|bench|scripts)\/[\w./*{},<>-]*)/g;
/** A path below some folder of the tree (`pipeline/core/plan.ts`), or a bare file name (`plan.ts`). */
const SOURCE_FILE = /(?<![\w./@<>{*-])((?:[\w-]+\/)*[\w-][\w.-]*\.(?:ts|tsx|mts|mjs|cjs))(?![\w/-])/g;

/** Every file under the source roots, as a path from the repository's root. */
export function sourceFiles(repo: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(repo, dir), { withFileTypes: true }).flatMap((e) => {
      if (SKIPPED.has(e.name)) return [];
      const path = `${dir}/${e.name}`;
      return e.isDirectory() ? walk(path) : [path];
    });
  return SOURCE_ROOTS.filter((root) => existsSync(join(repo, root))).flatMap(walk);
}

/** Every markdown file below `dir` (a path from the repository's root). */
export function markdownUnder(repo: string, dir: string): string[] {
  return readdirSync(join(repo, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? markdownUnder(repo, `${dir}/${e.name}`) : e.name.endsWith('.md') ? [`${dir}/${e.name}`] : [],
  );
}

const withoutFences = (markdown: string): string => markdown.replace(/```[\s\S]*?```/g, '');
const inlineCode = (markdown: string): string[] =>
  [...withoutFences(markdown).matchAll(/`([^`\n]+)`/g)].map((m) => m[1]);
const prose = (markdown: string): string => withoutFences(markdown).replace(/`[^`\n]*`/g, ' ');

/**
 * The paths a page cites: full paths (`src/…`, `test/…`, `e2e/…`, `bench/…`, `scripts/…`) that begin an inline code
 * span or stand in its prose (a code block's may be a reader's own project, as in testing.md's examples), and
 * source files named by a shorter path (anywhere) or by name alone (outside code blocks).
 */
export function citedPaths(markdown: string): { full: string[]; short: string[] } {
  const full = [
    ...inlineCode(markdown).flatMap((span) => [...span.matchAll(FULL)].filter((m) => m.index === 0)),
    ...prose(markdown).matchAll(FULL),
  ].map((m) => m[1].replace(/[.,:;]+$/, ''));
  // in a code block a bare file name may be the reader's own (jest.config.mjs); a path below a folder is ours
  const short = [
    ...[...markdown.matchAll(SOURCE_FILE)].map((m) => m[1]).filter((p) => p.includes('/')),
    ...[...withoutFences(markdown).matchAll(SOURCE_FILE)].map((m) => m[1]).filter((p) => !p.includes('/')),
  ].filter((p) => !/^(src|test|e2e|bench|scripts|bin)\//.test(p));
  return { full, short };
}

/** `a/{b,c}/d` → `a/b/d`, `a/c/d` */
function expandBraces(path: string): string[] {
  const m = /\{([^{}]*)\}/.exec(path);
  if (!m) return [path];
  return m[1]
    .split(',')
    .flatMap((part) => expandBraces(path.slice(0, m.index) + part + path.slice(m.index + m[0].length)));
}

const globRegex = (glob: string): RegExp =>
  new RegExp(
    '^' +
      glob
        .split(/(\*\*\/?|\*)/)
        .map((part) =>
          part === '**/' || part === '**'
            ? '(?:.*/)?'
            : part === '*'
              ? '[^/]*'
              : part.replace(/[.+?^$()[\]|\\]/g, '\\$&'),
        )
        .join('') +
      '/?$',
  );

/** Does a full cited path name a file or folder of the tree (a glob: at least one; a <placeholder>: its folder)? */
export function fullPathExists(repo: string, files: readonly string[], cited: string): boolean {
  return expandBraces(cited).every((path) => {
    const bare = path.replace(/:\d+$/, '');
    if (bare.includes('<')) return existsSync(join(repo, bare.slice(0, bare.lastIndexOf('/', bare.indexOf('<')))));
    if (!bare.includes('*')) return existsSync(join(repo, bare));
    const glob = globRegex(bare);
    return files.some((f) => glob.test(f));
  });
}

/** Does a short cited path end some file of the tree (`core/plan.ts`), or a bare name name one (`plan.ts`)? */
export function shortPathExists(files: readonly string[], cited: string): boolean {
  return files.some((f) => f.endsWith(`/${cited}`));
}
