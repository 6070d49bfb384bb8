import type { Locator, Page } from '@playwright/test';

// Measures of the window's layout, shared by the workspace specs.

/** the number a counter shows ("21 exchanges" → 21) */
export const count = async (locator: Locator): Promise<number> =>
  Number(/^\d+/.exec((await locator.textContent()) ?? '')?.[0] ?? NaN);

/** rows of the exchange table whose whole box is in sight: inside the window, inside the table's scroll pane, below its header */
export async function rowsInView(page: Page): Promise<number> {
  return page.evaluate(() => {
    const pane = document.querySelector('[data-testid="timeline-scroll"]')?.getBoundingClientRect();
    const head = document.querySelector('.tl-table thead')?.getBoundingClientRect();
    const top = Math.max(0, pane?.top ?? 0, head?.bottom ?? 0);
    const bottom = Math.min(window.innerHeight, pane?.bottom ?? Infinity);
    return Array.from(document.querySelectorAll('tr.tl-row')).filter((tr) => {
      const r = tr.getBoundingClientRect();
      return r.top >= top - 0.5 && r.bottom <= bottom + 0.5 && r.height > 0;
    }).length;
  });
}

/** the page itself never scrolls: its height is the window's, and a scroll attempt moves nothing */
export async function pageScrolls(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const root = document.scrollingElement ?? document.documentElement;
    root.scrollTop = 10_000;
    const moved = root.scrollTop !== 0 || root.scrollHeight > window.innerHeight;
    root.scrollTop = 0;
    return moved;
  });
}
