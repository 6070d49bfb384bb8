import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, test } from './shell.js';

// Accessibility of every view with axe-core (the maintained engine behind Lighthouse's and DevTools' audits), in
// real Chromium against the real engine: no serious or critical violation, in the light and the dark theme; and no
// heading that skips a level (axe's `heading-order`, "moderate": a screen reader's list of headings has holes).

/** moderate findings kept all the same: the detail's Overview once jumped from the proxies' h2 to an h4 */
const MODERATE_KEPT = new Set(['heading-order']);

interface Found {
  id: string;
  impact: string;
  help: string;
  nodes: string[];
}

async function audit(page: Page, where: string): Promise<Found[]> {
  const { violations } = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'])
    .analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical' || MODERATE_KEPT.has(v.id))
    .map((v) => ({
      id: `${where}: ${v.id}`,
      impact: v.impact ?? '',
      help: v.help,
      nodes: v.nodes.slice(0, 12).map((n) => `${n.target.join(' ')} ${(n.any[0]?.message ?? '').slice(0, 120)}`),
    }));
}

for (const theme of ['light', 'dark'] as const) {
  test(`no serious or critical axe violation on any view (${theme} theme)`, async ({ app }) => {
    test.setTimeout(180_000); // some 25 axe audits: about a minute on a quiet machine, twice that on a loaded one
    const { page } = app;
    await page.emulateMedia({ colorScheme: theme });
    await page.setViewportSize({ width: 1280, height: 720 });
    await app.open();
    await expect(page.getByRole('status')).toHaveText('connected');
    const found: Found[] = [];
    const nav = page.getByRole('navigation', { name: 'Views' });

    found.push(...(await audit(page, 'timeline (empty)')));
    await page.getByRole('button', { name: 'Run demo' }).click();
    const table = page.getByRole('table', { name: 'Recent exchanges' });
    await expect(table.getByRole('row').filter({ hasText: 'summarize' })).toHaveCount(1, { timeout: 20_000 });
    await table.getByRole('row').filter({ hasText: 'long-task' }).click();
    const detail = page.getByRole('complementary', { name: 'Exchange detail' });
    for (const tab of ['Overview', 'Request', 'Response', 'Stream', 'Content']) {
      await detail.getByRole('tab', { name: new RegExp(`^${tab}`) }).click();
      found.push(...(await audit(page, `timeline detail ${tab}`)));
    }
    // the verbs: Edit (a form from the schema), Diff (changes, side by side), the Copy as menu, a note
    await detail.getByRole('button', { name: '↻ Resend' }).click();
    await expect(detail.getByTestId('diff-summary')).toBeVisible();
    found.push(...(await audit(page, 'timeline detail Diff')));
    await detail.getByRole('button', { name: 'Copy as ▾' }).click();
    found.push(...(await audit(page, 'copy as menu')));
    await detail.getByRole('button', { name: 'Copy as ▾' }).click();
    await table.getByRole('row').filter({ hasText: 'weather' }).first().click();
    await detail.getByRole('button', { name: '✎ Edit & resend' }).click();
    await expect(detail.getByRole('group', { name: 'Arguments of weather' })).toBeVisible();
    found.push(...(await audit(page, 'timeline detail Edit')));
    await detail.getByRole('button', { name: 'Note…' }).click();
    found.push(...(await audit(page, 'note')));
    await detail.getByLabel('Note').press('Escape');
    await page.getByRole('button', { name: 'Group by session' }).click();
    found.push(...(await audit(page, 'grouped by session')));
    await page.getByRole('button', { name: 'Group by session' }).click();

    await page.getByRole('button', { name: 'Compose a call through demo' }).click();
    const compose = page.getByRole('complementary', { name: 'Compose' });
    await compose.getByLabel('Tool').selectOption('schedule');
    await compose.getByRole('button', { name: 'Call schedule' }).click(); // problems beside their fields
    found.push(...(await audit(page, 'compose (tools)')));
    await compose.getByRole('tab', { name: /^Resources/ }).click();
    found.push(...(await audit(page, 'compose (resources)')));
    await compose.getByRole('button', { name: 'Close compose' }).click();
    await page.getByRole('button', { name: 'Save…' }).click();
    found.push(...(await audit(page, 'save dialog')));
    await page.getByRole('form', { name: 'Save exchanges' }).getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'Open…' }).click();
    found.push(...(await audit(page, 'open dialog')));
    await page.getByRole('form', { name: 'Open into the timeline' }).getByRole('button', { name: 'Cancel' }).click();

    await page.getByRole('tab', { name: 'Waterfall' }).click();
    found.push(...(await audit(page, 'waterfall')));
    await page.getByRole('tab', { name: 'Histogram' }).click();
    found.push(...(await audit(page, 'histogram')));
    await page.getByRole('tab', { name: 'Table' }).click();

    await page.getByRole('button', { name: 'New proxy', exact: true }).click();
    const form = page.getByRole('form', { name: 'New proxy' });
    await form.getByRole('button', { name: 'Create proxy' }).click(); // field errors shown
    found.push(...(await audit(page, 'new proxy dialog')));
    await form.getByRole('button', { name: 'Cancel' }).click();

    await page.getByRole('button', { name: /^Breakpoints/ }).click();
    found.push(...(await audit(page, 'breakpoints drawer')));
    await page.getByRole('button', { name: 'Close breakpoints' }).click();

    for (const view of ['Rules', 'Cassettes', 'Export', 'Settings']) {
      await nav.getByRole('button', { name: view }).click();
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(view);
      if (view === 'Rules') await page.getByRole('region', { name: 'Tools' }).getByTestId('tool-weather').click();
      if (view === 'Cassettes') {
        await page.getByRole('list', { name: 'Proxy cassette folders' }).getByRole('button').first().click();
        await page
          .getByRole('table', { name: 'Cassette entries' })
          .getByRole('row')
          .filter({ hasText: 'weather' })
          .first()
          .click();
      }
      found.push(...(await audit(page, view.toLowerCase())));
    }
    if (found.length) console.log(JSON.stringify(found, null, 2));
    expect(found).toEqual([]);
  });
}
