import type { Locator, Page } from '@playwright/test';

// Measures of the window's layout, shared by the workspace specs.

/** the number a counter shows ("21 exchanges" → 21) */
export const count = async (locator: Locator): Promise<number> => Number(/^\d+/.exec((await locator.textContent()) ?? '')?.[0] ?? NaN);

/** rows of the exchange table whose whole box is inside the window */
export async function rowsInView(page: Page): Promise<number> {
  return page.evaluate(() => {
    const h = window.innerHeight;
    return Array.from(document.querySelectorAll('tr.tl-row')).filter((tr) => {
      const r = tr.getBoundingClientRect();
      return r.top >= 0 && r.bottom <= h && r.height > 0;
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
