import { readFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HAS_PROCFS, openFds } from '../helpers/procfs.js';
import { startUiProcess, type UiProcess } from '../helpers/ui-process.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';

// The UI's page server needs no token: every GET / or asset whose client reset mid-answer used to leave its file open
// (one descriptor each, until the process had none left and proxied MCP calls failed). `mcp-rewind ui` as a real
// process serving the built renderer, its descriptors counted in /proc before and after 500 reset requests.

const REPO = join(import.meta.dirname, '../..');
let ui: UiProcess | undefined;
afterEach(async () => {
  await ui?.stop();
  ui = undefined;
  await removeTempDirs();
});

/** GET `path`, then reset the connection (RST): at once, or when the first bytes of the answer arrive. */
function resetGet(port: number, path: string, when: 'at once' | 'mid-answer'): Promise<void> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
      if (when === 'at once') setImmediate(() => socket.resetAndDestroy());
    });
    socket.once('data', () => socket.resetAndDestroy());
    socket.on('error', () => {});
    socket.once('close', () => resolve());
  });
}

/** the count once it stops moving (the server has seen every reset) */
async function settledFds(pid: number): Promise<number> {
  let last = openFds(pid);
  for (let stable = 0, i = 0; stable < 4 && i < 100; i++) {
    await new Promise((r) => setTimeout(r, 100));
    const now = openFds(pid);
    stable = now === last ? stable + 1 : 0;
    last = now;
  }
  return last;
}

describe.skipIf(!HAS_PROCFS)('the UI page server under resets', () => {
  if (!HAS_PROCFS) console.log('skipped: descriptors are counted in /proc (Linux)');

  it('500 GETs of the page and its assets reset mid-answer leave no descriptor open (equal within 5)', async () => {
    const index = readFileSync(join(REPO, 'out/renderer/index.html'), 'utf8');
    const assets = [...index.matchAll(/(?:src|href)="\.?(\/assets\/[^"]+)"/g)].map((m) => m[1]);
    expect(assets.length).toBeGreaterThan(0);
    ui = await startUiProcess(await tempDir('rewind-ui-data-'), { args: ['--no-open'] });
    const port = Number(new URL(ui.origin).port);
    const paths = ['/', '/index.html', ...assets];
    for (const path of paths) expect((await fetch(`${ui.origin}${path}`)).status, path).toBe(200); // warm: every file served once
    const before = await settledFds(ui.pid);
    for (let batch = 0; batch < 10; batch++) {
      await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          resetGet(port, paths[(batch * 50 + i) % paths.length], i % 2 === 0 ? 'mid-answer' : 'at once'),
        ),
      );
    }
    const after = await settledFds(ui.pid);
    console.log(`UI page server: ${before} descriptors before, ${after} after 500 reset requests`);
    expect(Math.abs(after - before), `descriptors: ${before} before, ${after} after 500 resets`).toBeLessThanOrEqual(5);
    // and it still serves
    expect((await fetch(`${ui.origin}/`)).status).toBe(200);
  }, 60_000);
});
