/**
 * The library's API reference stays in sync with the code: every export of the three entry points has a doc comment
 * in its source and a `### \`name\`` section in docs/library-api.md, and the page documents nothing that is not exported.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/hostile.js';

const ENTRIES = ['src/lib/index.ts', 'src/lib/vitest.ts', 'src/lib/jest.ts'].map((f) => join(REPO, f));

function exportsOf(): Map<string, { file: string; documented: boolean }> {
  const program = ts.createProgram(ENTRIES, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const found = new Map<string, { file: string; documented: boolean }>();
  for (const entry of ENTRIES) {
    const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(entry) as ts.SourceFile) as ts.Symbol;
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const documented = target.getDocumentationComment(checker).some((part) => part.text.trim().length > 0);
      found.set(exported.name, {
        file: entry.slice(REPO.length + 1),
        documented: (found.get(exported.name)?.documented ?? true) && documented,
      });
    }
  }
  return found;
}

const exported = exportsOf();
const page = readFileSync(join(REPO, 'docs/library-api.md'), 'utf8');
const sections = new Set([...page.matchAll(/^### `([^`]+)`$/gm)].map((m) => m[1]));

describe('the library API reference (docs/library-api.md)', () => {
  it('finds the exports (the check itself works)', () => {
    for (const name of ['startProxy', 'wrapTransport', 'CassetteMissError', 'useCassette', 'setupCassettes'])
      expect(exported.has(name), name).toBe(true);
  });

  it('every export has a doc comment in its source', () => {
    expect([...exported].filter(([, e]) => !e.documented).map(([name, e]) => `${name} (${e.file})`)).toEqual([]);
  });

  it('every export has its section, and every section names an export', () => {
    expect([...exported.keys()].filter((name) => !sections.has(name))).toEqual([]);
    expect([...sections].filter((name) => !exported.has(name))).toEqual([]);
  });
});
