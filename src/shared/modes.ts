export const MODES = ['record', 'replay', 'hybrid', 'proxy-only'] as const;
/** How a proxy answers: record (forward, store), replay (cassette only), hybrid (cassette, else forward and store), proxy-only (forward). */
export type Mode = (typeof MODES)[number];

/**
 * What a mode does with the two sources, an upstream server and a cassette folder. This table is the one place that
 * knows what a mode is: the endpoint factory installs the replayer and the recorder by it, and the CLI, `serve`, the
 * app and the New proxy form ask it what a proxy needs — nothing compares mode names.
 */
export interface ModeTraits {
  /** forwards requests to an upstream server, so it needs one (a URL or a stdio command); replay never talks to one */
  readonly forwards: boolean;
  /** answers from the cassette (the replayer is installed) */
  readonly replays: boolean;
  /** writes the upstream's answers into the cassette (the recorder is installed): a folder, created when missing */
  readonly records: boolean;
  /** has a cassette at all: it replays or records (proxy-only has none) */
  readonly usesCassette: boolean;
  /** reads a cassette it never writes: the cassette must exist before the proxy starts (replay) */
  readonly needsExistingCassette: boolean;
  /** answers from the cassette alone (it replays, never forwards): a request it has no recording of misses (replay) */
  readonly cassetteOnly: boolean;
}

function traits(own: Pick<ModeTraits, 'forwards' | 'replays' | 'records'>): ModeTraits {
  return {
    ...own,
    usesCassette: own.replays || own.records,
    needsExistingCassette: own.replays && !own.records,
    cassetteOnly: own.replays && !own.forwards,
  };
}

export const MODE_TRAITS: Readonly<Record<Mode, ModeTraits>> = {
  record: traits({ forwards: true, replays: false, records: true }),
  replay: traits({ forwards: false, replays: true, records: false }),
  hybrid: traits({ forwards: true, replays: true, records: true }),
  'proxy-only': traits({ forwards: true, replays: false, records: false }),
};
