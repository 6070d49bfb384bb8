import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { count, pageScrolls } from './layout.js';
import { expect, ROOT, test } from './shell.js';

// The window down to the app's minimum size (720×480): every control visible, none drawn over another, in every view.

const SHOTS = join(ROOT, 'docs/screenshots');

/** controls of the Timeline's bars that stick out of the window, or overlap another control of the same bar */
async function clippedOrOverlapping(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    const name = (el: Element): string =>
      `${el.tagName.toLowerCase()} "${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 30)}"`;
    for (const bar of Array.from(document.querySelectorAll('.proxy-row, .tl-toolbar, .tl-filters'))) {
      const items = Array.from(
        bar.querySelectorAll('button, select, input, code, .proxy-target, .proxy-name, .chip, .badge'),
      )
        .map((el) => ({ el, r: el.getBoundingClientRect() }))
        .filter(({ r }) => r.width > 0 && r.height > 0);
      for (const { el, r } of items)
        if (r.left < 0 || r.right > window.innerWidth + 0.5) found.push(`${name(el)} cut off at the window's edge`);
      for (let i = 0; i < items.length; i++)
        for (let j = i + 1; j < items.length; j++) {
          const [a, b] = [items[i], items[j]];
          if (a.el.contains(b.el) || b.el.contains(a.el)) continue;
          const overlap =
            Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left) > 1 &&
            Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top) > 1;
          if (overlap) found.push(`${name(a.el)} overlaps ${name(b.el)}`);
        }
    }
    return found;
  });
}

/** buttons and fields of the open view that reach past the window's right edge (editors and tables scroll inside) */
async function cutOff(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll('main button, main select, main input, main textarea'))
      .filter((el) => !el.closest('.cm-editor, table'))
      .filter((el) => {
        const r = el.getBoundingClientRect();
        return r.width > 0 && r.height > 0 && r.right > window.innerWidth + 0.5;
      })
      .map(
        (el) =>
          `${el.tagName.toLowerCase()} "${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 30)}"`,
      ),
  );
}

for (const size of [
  { width: 720, height: 480 },
  { width: 1100, height: 700 },
]) {
  test(`a narrow window (${size.width}×${size.height}, the app's minimum is 720×480): every control visible, none over another`, async ({
    app,
  }) => {
    const { page } = app;
    await page.setViewportSize(size);
    await app.open();
    await page.getByRole('button', { name: 'Run demo' }).click();
    await expect.poll(() => count(page.getByTestId('traffic-count')), { timeout: 20_000 }).toBeGreaterThanOrEqual(7);
    await page
      .getByRole('table', { name: 'Recent exchanges' })
      .getByRole('row')
      .filter({ hasText: 'long-task' })
      .last()
      .click();
    await expect(page.getByRole('complementary', { name: 'Exchange detail' })).toBeVisible();
    expect(await clippedOrOverlapping(page)).toEqual([]);
    await expect(page.getByLabel('Search')).toBeInViewport({ ratio: 1 });
    expect(await pageScrolls(page)).toBe(false);
    await app.screenshot(join(SHOTS, `workspace-narrow-${size.width}.png`));
    // the other views too: no control past the window's right edge
    for (const view of ['Rules', 'Cassettes', 'Export', 'Settings', 'Intercept']) {
      await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: view }).click();
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(view);
      if (view === 'Rules')
        await page
          .getByRole('button', { name: /^weather/ })
          .first()
          .click();
      expect(await cutOff(page), view).toEqual([]);
      if (view === 'Rules' && size.width === 720) await app.screenshot(join(SHOTS, 'rules-narrow-720.png'));
    }
  });
}
