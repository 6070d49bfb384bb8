#!/usr/bin/env node
// Entry point of the `mcp-rewind` command: the compiled CLI lives in dist/ (npm run build).
import { readFileSync } from 'node:fs';

// `mcp-rewind --version` alone is answered here, from package.json, without loading the CLI (commander and the
// flags' modules): it is what scripts and clients run to probe the install, and it should cost little more than node
if (process.argv.length === 3 && process.argv[2] === '--version') {
  process.stdout.write(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version + '\n');
} else {
  import('../dist/main/cli.js').catch((error) => {
    if (error && error.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/main/cli.js')) {
      process.stderr.write('mcp-rewind: not built yet — run `npm run build` first\n');
      process.exit(1);
    }
    throw error;
  });
}
