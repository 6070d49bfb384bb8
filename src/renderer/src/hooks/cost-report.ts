import { useEffect, useState } from 'react';
import type { CostScopeInput } from '../../../shared/api.js';
import type { CostDiff, CostReport } from '../../../shared/insight/cost.js';
import { api } from '../api/current.js';

export interface CostAnswer {
  report?: CostReport;
  diff?: CostDiff;
  error?: string;
}

/**
 * What recording `a` puts in a model's context and, with `b`, the difference to it: asked again when a scope changes;
 * the last answer stays shown until the next lands, and one that lands after a newer ask is dropped.
 */
export function useCostReport(a: CostScopeInput | undefined, b: CostScopeInput | undefined): CostAnswer {
  const [answer, setAnswer] = useState<CostAnswer>({});
  const aKey = JSON.stringify(a ?? null);
  const bKey = JSON.stringify(b ?? null);
  useEffect(() => {
    if (!a) return;
    let live = true;
    const run = async (): Promise<void> => {
      try {
        const report = await api().call('insight.cost', a);
        const diff = b ? await api().call('insight.costDiff', { a, b }) : undefined;
        if (live) setAnswer({ report, diff });
      } catch (e) {
        if (live) setAnswer((was) => ({ ...was, error: (e as Error).message }));
      }
    };
    void run();
    return () => void (live = false);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the scopes' JSON says when they changed
  }, [aKey, bKey]);
  return answer;
}
