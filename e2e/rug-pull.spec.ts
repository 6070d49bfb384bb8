import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { connectClient, type ConnectedClient } from '../test/fixtures/client.js';
import { CHANGED_DESCRIPTION, startChangingToolsServer } from '../test/helpers/changing-tools.js';
import { newProxy } from './inspector-helpers.js';
import { ROOT, expect, test } from './shell.js';

// Issue 35 item 4: a tool description that changes within one session (a real SDK McpServer updates it and sends
// notifications/tools/list_changed; the client lists again) is warned about on the changed list, the ⚠ names the
// finding, and a second session's first, clean list gets no warning.

const SHOTS = join(ROOT, 'test-results', 'screenshots'); // inside the checkout (ignored), never beside it

test('a rug pull within a session: the changed list is warned about, the ⚠ names it, the next session’s clean list is not', async ({
  app,
}) => {
  test.setTimeout(90_000);
  const { page, problems } = app;
  const upstream = await startChangingToolsServer();
  const clients: ConnectedClient[] = [];
  try {
    await page.setViewportSize({ width: 1280, height: 720 });
    await app.open();
    const row = await newProxy(page, { mode: 'proxy-only', name: 'changing', upstreamUrl: upstream.url });
    const url = (await row.locator('code').textContent()) ?? '';
    const first = await connectClient(url);
    clients.push(first);
    await first.client.listTools();
    await first.client.callTool({ name: 'upgrade', arguments: {} });
    await expect.poll(() => first.notifications.map((n) => n.method)).toContain('notifications/tools/list_changed');
    const changed = await first.client.listTools();
    expect(changed.tools.find((t) => t.name === 'fetch')?.description).toBe(CHANGED_DESCRIPTION);
    const second = await connectClient(url);
    clients.push(second);
    await second.client.listTools();

    await page.getByRole('combobox', { name: 'Search' }).fill('method:tools/list');
    const table = page.getByRole('table', { name: 'Recent exchanges' });
    const lists = table.getByRole('row').filter({ hasText: 'tools/list' });
    await expect(lists).toHaveCount(3);
    // the changed list: its ⚠ names the rug pull (not only how many)
    const badge = lists.nth(1).getByTestId('problem-count');
    await expect(badge).toHaveAttribute(
      'title',
      /security\.rug-pull: the tool list changed within this session, since its list in #\d+: fetch changed/,
    );
    // the first list and the second session's first (the clean description again): no rug pull
    // (before: the second session's clean list was compared with the first session's last list and got ⚠1)
    await expect(lists.nth(0).getByTestId('problem-count')).toHaveCount(0);
    await expect(lists.nth(2).getByTestId('problem-count')).toHaveCount(0);

    // the detail: the rule by its id and title, the message naming the earlier list, the diff
    const detail = page.getByRole('complementary', { name: 'Exchange detail' });
    // on its time cell (not the ⚠ badge); again while rows of the second session still arrive and re-render
    await expect(async () => {
      await lists.nth(1).getByRole('cell').nth(1).click();
      await expect(detail).toBeVisible({ timeout: 1_000 });
    }).toPass({ timeout: 10_000 });
    await expect(detail.getByText(/⚠ \d+: .*security\.rug-pull/)).toBeVisible();
    await detail.getByRole('tab', { name: /Problems \(\d+\)/ }).click();
    const found = detail
      .getByRole('list', { name: 'Problems' })
      .getByRole('listitem')
      .filter({ hasText: 'security.rug-pull' });
    await expect(found).toContainText('the tool list changed (within a session, or since an earlier session');
    await expect(found).toContainText('within this session, since its list in #');
    await expect(found.locator('.problem-detail')).toContainText('~ fetch: description changed');
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, 'rug-pull-1280.png') });
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.screenshot({ path: join(SHOTS, 'rug-pull-1440.png') });
    await badge.hover();
    expect(problems).toEqual([]);
  } finally {
    for (const c of clients) await c.close().catch(() => undefined);
    await upstream.close();
  }
});
