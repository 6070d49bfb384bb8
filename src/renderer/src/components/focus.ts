import { useLayoutEffect, useRef } from 'react';

/**
 * While `open`, remembers what had the focus when it opened; when it closes, gives the focus back there (or to
 * `fallback()` when that element is gone), so that Esc never leaves the focus on <body>. It moves the focus only if
 * the focus went with what closed (it is on <body>), never away from where the user put it.
 */
export function useFocusReturn(open: boolean, fallback?: () => HTMLElement | null | undefined): void {
  const opener = useRef<HTMLElement | null>(null);
  const back = useRef(fallback);
  useLayoutEffect(() => {
    back.current = fallback;
  });
  useLayoutEffect(() => {
    if (!open) return;
    opener.current =
      document.activeElement instanceof HTMLElement && document.activeElement !== document.body
        ? document.activeElement
        : null;
    return () => {
      const target = opener.current?.isConnected ? opener.current : back.current?.();
      requestAnimationFrame(() => {
        const now = document.activeElement;
        if (!now || now === document.body || !now.isConnected) target?.focus();
      });
    };
  }, [open]);
}

/** Focuses the timeline's table (its scroller: ↑/↓, Enter and Esc work there), e.g. after the detail closed. */
export function focusTable(): void {
  requestAnimationFrame(() =>
    document.querySelector<HTMLElement>('[data-testid="timeline-scroll"]')?.focus({ preventScroll: true }),
  );
}
