import type { KeyboardEvent } from 'react';

/**
 * A tablist as one Tab stop (WAI-ARIA tabs): the selected tab has tabIndex 0, the others -1; ←/→ move to the
 * previous / next tab and select it, Home / End the first / last. Put it on the element with role="tablist".
 */
export function onTabListKeyDown(event: KeyboardEvent<HTMLElement>, select: (index: number) => void): void {
  const keys: Record<string, (at: number, n: number) => number> = {
    ArrowRight: (at, n) => (at + 1) % n,
    ArrowLeft: (at, n) => (at + n - 1) % n,
    Home: () => 0,
    End: (_, n) => n - 1,
  };
  const move = keys[event.key];
  if (!move) return;
  const tabs = [...event.currentTarget.querySelectorAll<HTMLElement>('[role="tab"]:not([disabled])')];
  const at = tabs.indexOf(document.activeElement as HTMLElement);
  if (at < 0) return;
  event.preventDefault();
  const to = move(at, tabs.length);
  tabs[to].focus();
  select(to);
}

/** the tabIndex of a tab: only the selected one is a Tab stop */
export const tabStop = (selected: boolean): 0 | -1 => (selected ? 0 : -1);
