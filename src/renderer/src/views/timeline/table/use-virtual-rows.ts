import { useEffect, useRef, type RefObject } from 'react';
import { useVirtualizer, type Virtualizer } from '@tanstack/react-virtual';

export const ROW_HEIGHT = 26;

export interface VirtualRows {
  virtualizer: Virtualizer<HTMLDivElement, Element>;
  /** following the newest row (the view is at the bottom) */
  stick: RefObject<boolean>;
  onScroll(): void;
}

/**
 * The table's rows through react-virtual (only the visible ones are in the DOM): follows the newest row while
 * `autoScroll` and the view is at the bottom; keeps the selected row in view when the detail opens or closes.
 */
export function useVirtualRows(
  scroller: RefObject<HTMLDivElement | null>,
  count: number,
  autoScroll: boolean,
  detailOpen: boolean,
  selectedIndex: number,
): VirtualRows {
  const stick = useRef(autoScroll);
  useEffect(() => {
    stick.current = autoScroll;
  }, [autoScroll]);
  // eslint-disable-next-line react-hooks/incompatible-library -- TanStack Virtual: the compiler leaves this component unmemoized, as intended
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });

  useEffect(() => {
    if (stick.current && count > 0) virtualizer.scrollToIndex(count - 1, { align: 'end' });
  }, [count, virtualizer]);

  // the selected row stays in view when the detail opens, closes or moves (the table's height changes)
  useEffect(() => {
    if (selectedIndex < 0) return;
    const frame = requestAnimationFrame(() => virtualizer.scrollToIndex(selectedIndex, { align: 'auto' }));
    return () => cancelAnimationFrame(frame);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only when the layout changes, not on every new row
  }, [detailOpen]);

  function onScroll(): void {
    const el = scroller.current;
    if (el) stick.current = el.scrollTop + el.clientHeight >= el.scrollHeight - ROW_HEIGHT;
  }
  return { virtualizer, stick, onScroll };
}
