import { useEffect, useState } from 'react';
import type { CommandOutput, TrafficEvent } from '../../../shared/api.js';
import { api } from '../api/current.js';

interface CassetteAnswers {
  entries?: CommandOutput<'cassettes.lookup'>['entries'];
  error?: string;
}

/** The cassette's recorded answers for this exchange's key (through the engine), as things to compare with. */
export function useCassetteAnswers(event: TrafficEvent, wanted: boolean): CassetteAnswers {
  const [state, setState] = useState<CassetteAnswers>({});
  useEffect(() => {
    if (!wanted) return;
    let live = true;
    api()
      .call('cassettes.lookup', { proxyId: event.proxyId, key: event.key })
      .then((found) => live && setState({ entries: found.entries }))
      .catch((e: Error) => live && setState({ error: e.message }));
    return () => {
      live = false;
    };
  }, [event.proxyId, event.key, wanted]);
  return state;
}
