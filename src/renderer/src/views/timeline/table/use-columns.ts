import { useCallback, useLayoutEffect, useMemo, useRef, useState, type RefObject } from 'react';
import type { TimelineColumns } from '../../../../../shared/settings.js';
import { DEFAULT_COLUMNS, dragWidths, layoutWidths, visibleColumns, type ColumnDef } from '../../../models/columns.js';
import { useSettings } from '../../../stores/settings.js';

/**
 * The table's column settings (order, hidden, widths, sort) and a way to change them (kept in the settings);
 * `besideDetail`: the few columns kept beside an open detail.
 */
export function useColumnSettings(besideDetail = false): {
  settings: TimelineColumns;
  cols: ColumnDef[];
  save(next: TimelineColumns): void;
} {
  const settings = useSettings((s) => s.settings?.timelineColumns) ?? DEFAULT_COLUMNS;
  const update = useSettings((s) => s.update);
  const cols = useMemo(() => visibleColumns(settings, besideDetail), [settings, besideDetail]);
  const save = useCallback((next: TimelineColumns) => void update({ timelineColumns: next }).catch(() => {}), [update]);
  return { settings, cols, save };
}

/** the width of a pane's content, followed as it is resized */
function useContentWidth(element: RefObject<HTMLElement | null>): number {
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const el = element.current;
    if (!el) return;
    // the observer reports the first size as soon as it observes, then every change
    const observer = new ResizeObserver(() => setWidth(el.clientWidth));
    observer.observe(el);
    return () => observer.disconnect();
  }, [element]);
  return width;
}

export interface ColumnWidths {
  px: number[];
  /** a pointer drag of column i's right edge, `dx` from where it started */
  resize(i: number, dx: number): void;
  /** the drag ended: keep its widths */
  commit(): void;
  /** a keyboard step: column i wider (dx > 0) or narrower, kept at once */
  nudge(i: number, dx: number): void;
}

/**
 * Pixel widths of the shown columns filling the pane: the identifying number as wide as its widest text needs (the
 * `measure` element, in the table's own font), the others in proportion to their widths; a drag (`resize`) moves the edge of a
 * column, `commit` keeps the result in the settings.
 */
export function useColumnWidths(
  scroller: RefObject<HTMLElement | null>,
  measure: RefObject<HTMLElement | null>,
  cols: ColumnDef[],
  settings: TimelineColumns,
  save: (next: TimelineColumns) => void,
): ColumnWidths {
  const available = useContentWidth(scroller);
  const [fixed, setFixed] = useState(56);
  useLayoutEffect(() => {
    // the text of the widest number, in the cells' font, plus the cell's padding: never cut (observed: it changes
    // with the text, and with the fonts once they load)
    const el = measure.current;
    if (!el) return;
    const observer = new ResizeObserver(() => {
      const w = el.getBoundingClientRect().width;
      if (w) setFixed(Math.ceil(w) + 16);
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, [measure]);
  const laid = useMemo(
    () => layoutWidths(cols, settings.widths, available || 900, fixed),
    [cols, settings.widths, available, fixed],
  );
  // a drag in progress: its widths, while the layout it started from holds (the settings answer ends it); a ref too,
  // since the pointer listeners of a drag keep the functions of the render it started in
  const [drag, setDrag] = useState<{ base: number[]; from: number[]; px: number[] }>();
  const latest = useRef<{ base: number[]; from: number[]; px: number[] } | undefined>(undefined);
  const laidNow = useRef(laid);
  useLayoutEffect(() => {
    laidNow.current = laid;
  });
  const live = drag && drag.base === laid ? drag : undefined;
  const keep = (px: number[]): void => {
    const widths = { ...settings.widths };
    cols.forEach((c, i) => {
      if (!c.fixed) widths[c.id] = Math.max(20, Math.round(px[i]));
    });
    save({ ...settings, widths });
  };
  return {
    px: live?.px ?? laid,
    resize: (i, dx) => {
      const base = laidNow.current;
      const from = latest.current?.base === base ? latest.current.from : base;
      latest.current = { base, from, px: dragWidths(cols, from, i, dx) };
      setDrag(latest.current);
    },
    commit: () => {
      const done = latest.current;
      latest.current = undefined;
      if (done && done.base === laidNow.current) keep(done.px);
    },
    nudge: (i, dx) => keep(dragWidths(cols, live?.px ?? laid, i, dx)),
  };
}
