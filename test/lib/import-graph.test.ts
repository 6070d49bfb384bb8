/** The library's entry points never load Electron, React, the renderer or the Electron shell: their whole import graph is read. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { REPO } from '../helpers/hostile.js';

/** Every file and package the module `file` reaches through its static and dynamic imports. */
function graph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(
      /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*'([^']+)'|import\(\s*'([^']+)'\s*\)/g,
    )) {
      if (!spec || spec.startsWith('node:')) continue;
      if (!spec.startsWith('.'))
        packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
      else {
        const target = resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
        visit(existsSync(target) ? target : target.replace(/\.ts$/, '.tsx'));
      }
    }
  };
  visit(entry);
  return { files, packages };
}

it.each(['index', 'vitest', 'jest'])(
  'src/lib/%s.ts reaches no Electron, React, renderer or app-shell module',
  (name) => {
    const { files, packages } = graph(join(REPO, 'src/lib', `${name}.ts`));
    expect(files.size).toBeGreaterThan(10); // the walk follows imports
    for (const banned of ['electron', 'react', 'react-dom', 'zustand', 'vite', 'electron-vite'])
      expect(packages).not.toContain(banned);
    const shells = [...files]
      .map((f) => relative(REPO, f))
      .filter((f) => /^src\/(renderer|preload|main\/app|main\/web|main\/api)\//.test(f));
    expect(shells).toEqual([]);
    if (name === 'vitest') expect(packages).toContain('vitest');
    else expect(packages).not.toContain('vitest');
  },
);
