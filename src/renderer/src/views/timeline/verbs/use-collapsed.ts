import { useLayoutEffect, useRef, useState, type RefObject } from 'react';

/** the width a one-line flex row's items take, gaps and padding included (an open menu, positioned, takes none) */
function contentWidth(el: HTMLElement): number {
  const style = getComputedStyle(el);
  const items = [...el.children] as HTMLElement[];
  const gaps = (parseFloat(style.columnGap) || 0) * Math.max(0, items.length - 1);
  const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
  return items.reduce((n, item) => n + item.offsetWidth, 0) + gaps + padding;
}

/**
 * Whether a one-line toolbar is too narrow for all its items: measured with them all, it stays
 * collapsed until it is as wide again.
 */
export function useCollapsed(bar: RefObject<HTMLElement | null>): boolean {
  const [collapsed, setCollapsed] = useState(false);
  const state = useRef({ collapsed: false, needed: 0 });
  const check = (): void => {
    const el = bar.current;
    if (!el) return;
    if (!state.current.collapsed) {
      state.current.needed = contentWidth(el);
      if (state.current.needed > el.clientWidth + 1) setCollapsed((state.current.collapsed = true));
    } else if (el.clientWidth >= state.current.needed) setCollapsed((state.current.collapsed = false));
  };
  useLayoutEffect(check); // its items changed (a pin, a note)
  useLayoutEffect(() => {
    const el = bar.current;
    if (!el) return;
    const observer = new ResizeObserver(check);
    observer.observe(el);
    return () => observer.disconnect();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- check reads only refs
  }, [bar]);
  return collapsed;
}
