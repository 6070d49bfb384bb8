/**
 * Child process for the kill -9 test of the cassette store (test/engine/robustness.test.ts):
 *
 *   node --import tsx test/helpers/record-loop.ts <cassette dir>
 *
 * Starts the SDK fixture server and a record-mode proxy on <cassette dir>, then records distinct echo calls from
 * several concurrent clients, forever. Prints `ready` once, then one line `recorded <file name>` per exchange the
 * proxy reports as written to disk. The parent SIGKILLs it mid-way. It also exits when its stdin closes, so it never
 * outlives the test process.
 */
import { startProxy } from '../../src/main/engine/proxy.js';
import { connectClient } from '../fixtures/client.js';
import { startSdkServer } from '../fixtures/sdk-server.js';

const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: record-loop.ts <cassette dir>\n');
  process.exit(2);
}
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();

const upstream = await startSdkServer();
const proxy = await startProxy({ mode: 'record', upstreamUrl: upstream.url, cacheDir: dir });
proxy.events.on('exchange', (event) => {
  if (event.cassette === 'recorded') process.stdout.write(`recorded ${event.key}\n`);
});
process.stdout.write('ready\n');

const CLIENTS = 4;
let next = 0;
await Promise.all(
  Array.from({ length: CLIENTS }, async () => {
    const { client } = await connectClient(proxy.url);
    for (;;) {
      const i = next++;
      // a big-ish text makes every write take a little longer, so the kill lands inside one more often
      await client.callTool({ name: 'echo', arguments: { text: `call ${i} ${'x'.repeat(20_000)}` } });
    }
  }),
);
