import {
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
  type CSSProperties,
  type JSX,
  type KeyboardEvent,
  type ReactNode,
} from 'react';

const ITEMS =
  '[role="menuitem"]:not([disabled]), [role="menuitemcheckbox"]:not([disabled]), [role="menuitemradio"]:not([disabled])';

/**
 * A menu (WAI-ARIA menu): the first item takes the focus, ↑/↓ Home End move between the items, Esc closes it and
 * gives the focus back to what had it (the button that opened it), Tab or a click outside closes it.
 */
export function Menu({
  label,
  onClose,
  className,
  style,
  children,
}: {
  label: string;
  onClose(): void;
  className?: string;
  style?: CSSProperties;
  children: ReactNode;
}): JSX.Element {
  const menu = useRef<HTMLDivElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  const close = useRef(onClose);
  useLayoutEffect(() => {
    close.current = onClose;
  });

  useLayoutEffect(() => {
    opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    menu.current?.querySelector<HTMLElement>(ITEMS)?.focus();
    const back = opener.current;
    return () => {
      requestAnimationFrame(() => {
        const now = document.activeElement;
        if (!now || now === document.body || !now.isConnected) back?.focus();
      });
    };
  }, []);

  useEffect(() => {
    const outside = (e: MouseEvent): void => {
      if (!menu.current?.contains(e.target as Node) && !opener.current?.contains(e.target as Node)) close.current();
    };
    window.addEventListener('mousedown', outside);
    return () => window.removeEventListener('mousedown', outside);
  }, []);

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>): void {
    const items = [...(menu.current?.querySelectorAll<HTMLElement>(ITEMS) ?? [])];
    const at = items.indexOf(document.activeElement as HTMLElement);
    const n = items.length;
    const to =
      event.key === 'ArrowDown'
        ? (at + 1) % n
        : event.key === 'ArrowUp'
          ? (at + n - 1) % n
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? n - 1
              : -1;
    if (to >= 0 && n > 0) {
      event.preventDefault();
      items[to].focus();
    } else if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      opener.current?.focus();
      onClose();
    } else if (event.key === 'Tab') onClose();
  }

  return (
    <div
      ref={menu}
      className={className ? `menu ${className}` : 'menu'}
      role="menu"
      aria-label={label}
      style={style}
      onKeyDown={onKeyDown}
    >
      {children}
    </div>
  );
}

/** A button that opens a menu below it; `children(close)` renders the items. */
export function MenuButton({
  label,
  menuLabel,
  title,
  className = 'small',
  wrapClass,
  children,
}: {
  label: ReactNode;
  menuLabel: string;
  title?: string;
  className?: string;
  wrapClass?: string;
  children: (close: () => void) => ReactNode;
}): JSX.Element {
  const [open, setOpen] = useState(false);
  const close = (): void => setOpen(false);
  return (
    <div className={wrapClass ? `menu-wrap ${wrapClass}` : 'menu-wrap'}>
      <button
        type="button"
        className={className}
        aria-haspopup="menu"
        aria-expanded={open}
        title={title}
        onClick={() => setOpen(!open)}
      >
        {label}
      </button>
      {open && (
        <Menu label={menuLabel} onClose={close}>
          {children(close)}
        </Menu>
      )}
    </div>
  );
}
