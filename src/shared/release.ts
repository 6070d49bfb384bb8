/**
 * Whether this version of mcp-rewind is on the npm registry. Until a release is published, `npx mcp-rewind@<v>`
 * fails with a 404, so the docs and the Export view give the way that works: `npm pack` in a checkout, then
 * `npm install ./mcp-rewind-<v>.tgz` where the command runs (npx then runs that install).
 */
export const PUBLISHED_ON_NPM = false;
