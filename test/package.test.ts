import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// What `npm pack` publishes and what a newcomer types: checked on the files themselves. The tarball is installed and
// run for real by the pack smoke test (test/pack/smoke.pack.ts, `npm run test:pack`, a step of .ci/run).
const REPO = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
  version: string;
  license: string;
  files: string[];
  main: string;
  bin: Record<string, string>;
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional: boolean }>;
  exports: Record<string, unknown>;
  allowScripts: Record<string, boolean>;
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sources(join(dir, d.name)) : /\.tsx?$/.test(d.name) ? [join(dir, d.name)] : [],
  );
}

/** npm packages imported by the code that runs from the package: the CLI/engine (dist) and the Electron main/preload bundles (out). */
function runtimeImports(): Set<string> {
  const names = new Set<string>();
  for (const file of [
    ...sources(join(REPO, 'src/main')),
    ...sources(join(REPO, 'src/shared')),
    ...sources(join(REPO, 'src/preload')),
    ...sources(join(REPO, 'src/lib')),
  ]) {
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(/(?:from|import\()\s*'([^.'][^']*)'/g)) {
      if (spec.startsWith('node:')) continue;
      names.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
    }
  }
  return names;
}

function pngSize(file: string): { width: number; height: number } {
  const b = readFileSync(file);
  expect(b.subarray(1, 4).toString('latin1'), file).toBe('PNG');
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

describe('package.json', () => {
  it('publishes only what runs: compiled CLI and engine, built renderer, Electron bundles, bin, schemas, the window icon', () => {
    expect(pkg.files).toEqual(['bin/', 'dist/', '!dist/**/*.map', 'out/', 'schemas/', 'resources/icons/256x256.png']);
    expect(pkg.scripts.prepack).toBe('npm run build'); // npm pack and npm publish build first
    expect(pkg.main).toBe('./out/main/index.js');
    expect(pkg.bin).toEqual({ 'mcp-rewind': 'bin/mcp-rewind.js' });
  });

  it('exports the library (ESM with types) and its vitest and jest helpers; main stays the Electron entry', () => {
    expect(pkg.exports).toEqual({
      '.': { types: './dist/lib/index.d.ts', import: './dist/lib/index.js' },
      './vitest': { types: './dist/lib/vitest.d.ts', import: './dist/lib/vitest.js' },
      './jest': { types: './dist/lib/jest.d.ts', import: './dist/lib/jest.js' },
      './package.json': './package.json',
    });
    for (const entry of ['index', 'vitest', 'jest'])
      expect(existsSync(join(REPO, 'src/lib', `${entry}.ts`)), entry).toBe(true);
  });

  it('has exactly the runtime imports as dependencies; Electron, test and build tools are not among them', () => {
    const imported = runtimeImports();
    imported.delete('electron'); // provided by Electron itself at run time, installed by the user for `mcp-rewind app`
    imported.delete('vitest'); // mcp-rewind/vitest runs inside the user's vitest: an optional peer dependency
    expect(Object.keys(pkg.dependencies).sort()).toEqual([...imported].sort());
    expect(pkg.peerDependencies).toEqual({ vitest: '>=3.0.0' });
    expect(pkg.peerDependenciesMeta).toEqual({ vitest: { optional: true } });
    for (const field of [pkg.dependencies, pkg.optionalDependencies ?? {}]) {
      for (const tool of [
        'electron',
        'electron-vite',
        'vite',
        'typescript',
        'vitest',
        '@playwright/test',
        'react',
        'tsx',
      ])
        expect(field).not.toHaveProperty(tool);
    }
    expect(pkg.devDependencies).toHaveProperty('electron');
  });

  it("npm ci never runs Electron's binary download, which fails where GitHub is unreachable (npm start fetches it)", () => {
    expect(pkg.allowScripts.electron).toBe(false);
  });

  it('is MIT, with the LICENSE file to say so', () => {
    expect(pkg.license).toBe('MIT');
    expect(readFileSync(join(REPO, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n/);
  });
});

describe('resources/ (the app icon)', () => {
  it('renders the SVG to the PNG sizes electron-builder uses; the browser shell serves the same icon', () => {
    expect(readFileSync(join(REPO, 'resources/icon.svg'), 'utf8')).toContain('<svg');
    expect(pngSize(join(REPO, 'resources/icon.png'))).toEqual({ width: 1024, height: 1024 });
    for (const size of [16, 24, 32, 48, 64, 128, 256, 512, 1024])
      expect(pngSize(join(REPO, `resources/icons/${size}x${size}.png`))).toEqual({ width: size, height: size });
    expect(readFileSync(join(REPO, 'src/renderer/public/favicon.svg'), 'utf8')).toBe(
      readFileSync(join(REPO, 'resources/icon.svg'), 'utf8'),
    );
    expect(pngSize(join(REPO, 'src/renderer/public/favicon.png'))).toEqual({ width: 32, height: 32 });
    expect(readFileSync(join(REPO, 'src/renderer/index.html'), 'utf8')).toMatch(
      /rel="icon" type="image\/svg\+xml" href="\.\/favicon\.svg"/,
    );
  });

  it('electron-builder.yml points at files that exist, for Linux, macOS and Windows', () => {
    const yml = readFileSync(join(REPO, 'electron-builder.yml'), 'utf8');
    for (const os of ['linux', 'mac', 'win']) expect(yml).toMatch(new RegExp(`^${os}:`, 'm'));
    const paths = [...yml.matchAll(/(?:icon|buildResources):\s*(\S+)/g)].map((m) => m[1]);
    expect(paths.length).toBeGreaterThanOrEqual(4);
    for (const p of paths) expect(existsSync(join(REPO, p)), p).toBe(true);
    expect(statSync(join(REPO, 'resources/icons')).isDirectory()).toBe(true);
    expect(readFileSync(join(REPO, 'src/main/app/index.ts'), 'utf8')).toContain("'../../resources/icons/256x256.png'");
  });
});
