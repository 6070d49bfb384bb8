import { useLayoutEffect, useState, type JSX, type KeyboardEvent, type PointerEvent, type RefObject } from 'react';
import { useSettings } from '../../stores/settings.js';

const MIN_HEIGHT = 40;
const MAX_HEIGHT = 600;

/**
 * The bar's height (a drag of its lower edge, or ↑/↓ on it; null: never dragged, it fits its rows up to a limit) and
 * whether it is collapsed: kept in the settings.
 */
export function useBarSize(): {
  height: number | null;
  collapsed: boolean;
  set(patch: { height?: number | null; collapsed?: boolean }): void;
} {
  const bar = useSettings((s) => s.settings?.proxiesBar) ?? { height: null, collapsed: false };
  const update = useSettings((s) => s.update);
  return { ...bar, set: (patch) => void update({ proxiesBar: { ...bar, ...patch } }).catch(() => {}) };
}

/** The list's height as laid out now (what a drag starts from when the bar fits its rows). */
export function useShownHeight(list: RefObject<HTMLElement | null>, ready: boolean): number {
  const [shown, setShown] = useState(0);
  useLayoutEffect(() => {
    const el = list.current;
    if (!el || !ready) return;
    const observer = new ResizeObserver(() => setShown(Math.round(el.getBoundingClientRect().height)));
    observer.observe(el);
    return () => observer.disconnect();
  }, [list, ready]);
  return shown;
}

/**
 * The lower edge of the bar: drag it (or ↑/↓ when focused) to give the proxies more or less room; a double click
 * gives the bar back its fit (its rows, up to a limit).
 */
export function BarResizer({
  height,
  onResize,
  onFit,
}: {
  height: number;
  onResize(height: number, done: boolean): void;
  onFit(): void;
}): JSX.Element {
  const onPointerDown = (event: PointerEvent<HTMLDivElement>): void => {
    event.preventDefault();
    const el = event.currentTarget;
    const y0 = event.clientY;
    el.setPointerCapture(event.pointerId);
    const at = (e: globalThis.PointerEvent): number =>
      Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, height + e.clientY - y0));
    const move = (e: globalThis.PointerEvent): void => onResize(at(e), false);
    const up = (e: globalThis.PointerEvent): void => {
      el.removeEventListener('pointermove', move);
      el.removeEventListener('pointerup', up);
      onResize(at(e), true);
    };
    el.addEventListener('pointermove', move);
    el.addEventListener('pointerup', up);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>): void => {
    const step = event.key === 'ArrowDown' ? 24 : event.key === 'ArrowUp' ? -24 : 0;
    if (!step) return;
    event.preventDefault();
    onResize(Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, height + step)), true);
  };
  return (
    <div
      className="proxies-resizer"
      role="separator"
      aria-orientation="horizontal"
      aria-label="Resize the proxies bar"
      aria-valuenow={Math.round(height)}
      aria-valuemin={MIN_HEIGHT}
      aria-valuemax={MAX_HEIGHT}
      tabIndex={0}
      title="Drag to resize the proxies bar; double-click to fit it to its proxies"
      onPointerDown={onPointerDown}
      onKeyDown={onKeyDown}
      onDoubleClick={onFit}
    />
  );
}
