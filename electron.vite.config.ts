import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';

const root = import.meta.dirname;
const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { version: string };

// Output layout (package.json "main" points at out/main/index.js):
//   out/main/index.js       Electron main process, ESM (package.json has "type": "module")
//   out/preload/index.cjs   preload, CommonJS: a sandboxed preload cannot be an ES module
//   out/renderer/           the React UI (index.html + assets)
export default defineConfig({
  main: {
    build: {
      rolldownOptions: {
        input: { index: resolve(root, 'src/main/app/index.ts') },
      },
    },
  },
  preload: {
    define: {
      __REWIND_VERSION__: JSON.stringify(pkg.version),
    },
    build: {
      rolldownOptions: {
        input: { index: resolve(root, 'src/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(root, 'src/renderer'),
    plugins: [react()],
    build: {
      rolldownOptions: {
        input: { index: resolve(root, 'src/renderer/index.html') },
      },
    },
  },
});
