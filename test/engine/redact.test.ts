import { afterEach, describe, expect, it } from 'vitest';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startProxy } from '../../src/main/engine/proxy.js';
import { connectClient } from '../fixtures/client.js';
import { startSdkServer } from '../fixtures/sdk-server.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close().catch(() => {});
  await removeTempDirs();
});

describe('user-configured secret patterns (--redact)', () => {
  it('never reach any cassette file, while the live client gets the real answer', async () => {
    const server = await startSdkServer();
    open.push(server);
    const cacheDir = await tempDir();
    const proxy = await startProxy({
      mode: 'record',
      upstreamUrl: server.url,
      cacheDir,
      redact: ['sk-[A-Za-z0-9]{8,}'],
    });
    open.push(proxy);
    const c = await connectClient(proxy.url);
    open.push(c);
    expect(await c.client.callTool({ name: 'echo', arguments: { text: 'token sk-LiveSecret123' } })).toEqual({
      content: [{ type: 'text', text: 'echo: token sk-LiveSecret123' }],
    });
    await proxy.flush();
    const files = await readdir(cacheDir);
    expect(files.some((f) => f.includes('tools_call_echo_'))).toBe(true);
    for (const file of files)
      expect(await readFile(join(cacheDir, file), 'utf8'), file).not.toContain('sk-LiveSecret123');
    const entry = JSON.parse(
      await readFile(
        join(cacheDir, files.find((f) => /^\d+ tools_call_echo_[0-9a-f]{16}\.json$/.test(f)) as string),
        'utf8',
      ),
    );
    expect(entry.result.content[0].text).toBe('echo: token [REDACTED]');
    expect(entry.arguments).toEqual({ text: 'token [REDACTED]' });
  });

  it('an invalid pattern is a usage error (exit 2, one line)', async () => {
    const bin = fileURLToPath(new URL('../../bin/mcp-rewind.js', import.meta.url));
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, [bin, '--replay', '--redact', '(unclosed'], (error, _out, err) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stderr: err }),
      );
      child.stdin?.end();
    });
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toContain('--redact "(unclosed"');
  });
});
