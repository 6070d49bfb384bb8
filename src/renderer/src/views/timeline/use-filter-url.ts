import { useEffect } from 'react';
import { viewFromHash } from '../../stores/navigation.js';
import { filterFromHash, hashWithFilter, sameFilter } from './filter-url.js';
import { useTimelineUi } from '../../stores/timeline-ui.js';

/**
 * Keeps the Timeline's filter and the URL in step while the Timeline is shown: a link carrying a filter
 * (`#/timeline?q=status%3Aerror`) opens with it, back/forward bring a filter back, and every filter change is
 * written in place (no history entry per keystroke).
 */
export function useFilterInUrl(): void {
  useEffect(() => {
    const write = (): void => {
      if (viewFromHash(window.location.hash) !== 'timeline') return;
      const hash = hashWithFilter('timeline', useTimelineUi.getState().filter);
      if (window.location.hash === hash) return;
      const { pathname, search } = window.location;
      window.history.replaceState(window.history.state, '', `${pathname}${search}${hash}`);
    };
    const read = (): void => {
      const carried = filterFromHash(window.location.hash);
      if (!carried) return write(); // a bare #/timeline (the nav): the current filter goes into it
      if (!sameFilter(carried, useTimelineUi.getState().filter)) useTimelineUi.getState().setFilter(carried);
    };
    read();
    const off = useTimelineUi.subscribe((s, before) => {
      if (s.filter !== before.filter) write();
    });
    window.addEventListener('hashchange', read);
    return () => {
      off();
      window.removeEventListener('hashchange', read);
    };
  }, []);
}
