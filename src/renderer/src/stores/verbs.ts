import { create } from 'zustand';
import type {
  Annotation,
  AppServerRequest,
  CommandInput,
  CommandOutput,
  ProxyCatalog,
  SaveResult,
  SourceInfo,
} from '../../../shared/api.js';
import type { AppSessionConfig } from '../../../shared/app-session.js';
import { api } from '../api/current.js';
import { followSources } from './traffic.js';

/**
 * The engine state behind the inspector's verbs: pins and notes, the files opened into the timeline, the server's
 * questions to the app's own sessions (sampling, elicitation), and each proxy's catalog (tools, prompts, resources).
 */
interface VerbsState {
  marks: Record<number, Annotation>;
  sources: SourceInfo[];
  questions: AppServerRequest[];
  catalogs: Record<string, { catalog?: ProxyCatalog; error?: string; loading: boolean }>;
  /** what the app's own sessions declare at initialize */
  appSession?: AppSessionConfig;
  error?: string;
}

export const useVerbs = create<VerbsState>()(() => ({ marks: {}, sources: [], questions: [], catalogs: {} }));

export async function annotate(seq: number, patch: { pinned?: boolean; note?: string }): Promise<void> {
  useVerbs.setState({ marks: await api().call('traffic.annotate', { seq, ...patch }) });
}

export async function openSource(path: string): Promise<SourceInfo> {
  const info = await api().call('sources.open', { path });
  useVerbs.setState((s) => ({ sources: s.sources.some((x) => x.id === info.id) ? s.sources : [...s.sources, info] }));
  return info; // its exchanges come with the 'sources' event's reload (attachVerbs)
}

export async function closeSource(id: string): Promise<void> {
  await api().call('sources.close', { id });
  useVerbs.setState((s) => ({ sources: s.sources.filter((x) => x.id !== id) }));
}

export function saveTraffic(input: CommandInput<'traffic.save'>): Promise<SaveResult> {
  return api().call('traffic.save', input);
}

/** Sends a request through a proxy (Resend, Edit & resend, Compose); the new exchange arrives as a traffic event. */
export function sendExchange(input: CommandInput<'exchange.send'>): Promise<CommandOutput<'exchange.send'>> {
  return api().call('exchange.send', input);
}

export async function answerQuestion(
  id: string,
  answer: { result?: Record<string, unknown>; error?: string },
): Promise<void> {
  useVerbs.setState({ questions: await api().call('appRequests.answer', { id, ...answer }) });
}

/** the endpoint each catalog was listed from */
const endpoints = new Map<string, string | undefined>();

/** The proxy's tools, prompts and resources (listed through the app's session); `refresh` lists them again. */
export async function loadCatalog(proxyId: string, refresh = false): Promise<void> {
  const had = useVerbs.getState().catalogs[proxyId];
  if (had && (had.loading || (had.catalog && !refresh))) return;
  const put = (entry: VerbsState['catalogs'][string]): void =>
    useVerbs.setState((s) => ({ catalogs: { ...s.catalogs, [proxyId]: entry } }));
  put({ ...had, loading: true });
  endpoints.set(
    proxyId,
    (
      await api()
        .call('proxies.list', {})
        .catch(() => [])
    ).find((p) => p.id === proxyId)?.url,
  );
  try {
    put({ catalog: await api().call('exchange.catalog', { proxyId }), loading: false });
  } catch (error) {
    put({ error: (error as Error).message, loading: false });
  }
}

export async function loadAppSession(): Promise<void> {
  useVerbs.setState({ appSession: await api().call('appSession.get', {}) });
}

/** Changes what the app's sessions declare; the catalogs are listed again (a server may offer other tools). */
export async function declareAppSession(config: AppSessionConfig): Promise<void> {
  const appSession = await api().call('appSession.set', config);
  useVerbs.setState({ appSession, catalogs: {} });
}

/** Checks a value against a JSON Schema in the engine (ajv); [] when it conforms. */
export async function checkSchema(
  schema: Record<string, unknown>,
  value: unknown,
): Promise<Array<{ path: string; message: string }>> {
  return (await api().call('schema.check', { schema, value })).problems;
}

export async function syncVerbs(): Promise<void> {
  try {
    const [marks, sources, questions] = await Promise.all([
      api().call('traffic.annotations', {}),
      api().call('sources.list', {}),
      api().call('appRequests.list', {}),
    ]);
    useVerbs.setState({ marks, sources, questions, error: undefined });
    void followSources(sources.map((s) => s.id));
  } catch (error) {
    useVerbs.setState({ error: (error as Error).message });
  }
}

/** Feeds the store from the api: the state now, then every annotations / sources / appRequests event. */
export function attachVerbs(): () => void {
  const offs = [
    api().on('annotations', (marks) => useVerbs.setState({ marks })),
    api().on('sources', (sources) => {
      useVerbs.setState({ sources });
      void followSources(sources.map((s) => s.id)); // a file's exchanges are added without one event each
    }),
    api().on('appRequests', (questions) => useVerbs.setState({ questions })),
    api().on('proxies', (proxies) => {
      // a proxy started again (another endpoint) or stopped may offer other tools: list them again when asked
      const { catalogs } = useVerbs.getState();
      const stale = Object.keys(catalogs).filter((id) => {
        const url = proxies.find((p) => p.id === id)?.url;
        const changed = endpoints.get(id) !== url;
        endpoints.set(id, url);
        return changed;
      });
      if (stale.length)
        useVerbs.setState({
          catalogs: Object.fromEntries(Object.entries(catalogs).filter(([id]) => !stale.includes(id))),
        });
    }),
  ];
  void syncVerbs();
  return () => offs.forEach((off) => off());
}
