/**
 * A proxy in a process of its own, for tests that look at what a process holds (/proc/<pid>/fd) or kill it:
 *
 *   node --import tsx test/helpers/proxy-process.ts '<ProxyOptions as JSON>'
 *
 * Prints `URL <local MCP URL>` once listening; exits when its stdin closes, so it never outlives the test.
 */
import { startProxy, type ProxyOptions } from '../../src/main/engine/proxy.js';

const options = JSON.parse(process.argv[2] ?? '{}') as ProxyOptions;
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();
const proxy = await startProxy(options);
process.stdout.write(`URL ${proxy.url}\n`);
