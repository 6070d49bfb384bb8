import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connectRunningUi, NoRunningUi } from '../../src/main/web/ui-link.js';
import type { RewindClient } from '../../src/shared/api-client.js';
import { startUiProcess, type UiProcess } from '../helpers/ui-process.js';
import { tempDir } from '../helpers/temp.js';

// A local program of the UI's owner (an attached proxy, `mcp-rewind mcp`) reaches the running `mcp-rewind ui`
// through the data folder: owner.json for the address, the owner-only ui-token for the credential.
describe('connectRunningUi', () => {
  let ui: UiProcess | undefined;
  let client: RewindClient | undefined;
  afterEach(async () => {
    client?.close();
    await ui?.stop();
    ui = client = undefined;
  });

  it('calls the running UI (a real mcp-rewind ui process) with the token of its data folder', async () => {
    const dataDir = await tempDir();
    ui = await startUiProcess(dataDir, { args: ['--no-open'] });
    client = await connectRunningUi(dataDir);
    const proxies = await client.call('proxies.list', {});
    expect(Array.isArray(proxies)).toBe(true);
    const settings = await client.call('settings.get', {});
    expect(settings).toHaveProperty('settings');
  });

  it('says plainly when no UI runs on the folder, or when its token cannot be read', async () => {
    const dataDir = await tempDir();
    await expect(connectRunningUi(dataDir)).rejects.toThrow(NoRunningUi);
    await expect(connectRunningUi(dataDir)).rejects.toThrow(/no mcp-rewind ui runs on/);
    ui = await startUiProcess(dataDir, { args: ['--no-open'] });
    writeFileSync(join(dataDir, 'ui-token'), 'not-the-token\n');
    chmodSync(join(dataDir, 'ui-token'), 0o600);
    await expect(connectRunningUi(dataDir, { queueTimeoutMs: 1_500 })).rejects.toThrow();
  });
});
