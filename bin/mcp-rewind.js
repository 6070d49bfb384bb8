#!/usr/bin/env node
// Entry point of the `mcp-rewind` command: the compiled CLI lives in dist/ (npm run build).
import('../dist/main/cli.js').catch((error) => {
  if (error && error.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/main/cli.js')) {
    process.stderr.write('mcp-rewind: not built yet — run `npm run build` first\n');
    process.exit(1);
  }
  throw error;
});
