import type { JSX } from 'react';
import { onTabListKeyDown, tabStop } from '../../components/tabs.js';
import type { DetailTabs } from './use-detail-tabs.js';

/** The detail's tab strip: one tab per section, the arrow keys moving between them. */
export function DetailTabList({ tabs, shown, setTab, label, tablist }: DetailTabs): JSX.Element {
  return (
    <div
      ref={tablist}
      className="tl-detail-tabs"
      role="tablist"
      aria-label="Exchange detail sections"
      onKeyDown={(e) => onTabListKeyDown(e, (i) => setTab(tabs[i]))}
    >
      {tabs.map((t) => (
        <button
          key={t}
          type="button"
          role="tab"
          id={`detail-tab-${t}`}
          tabIndex={tabStop(t === shown)}
          aria-selected={t === shown}
          aria-controls="detail-panel"
          className={t === shown ? 'active' : undefined}
          onClick={() => setTab(t)}
        >
          {label(t)}
        </button>
      ))}
    </div>
  );
}
