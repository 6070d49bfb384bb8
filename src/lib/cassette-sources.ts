import type { ReplayMiss } from '../shared/cassette/miss.js';
import { MODE_TRAITS, type Mode } from '../shared/modes.js';
import { buildResultHasher } from '../main/engine/cassette/hash.js';
import { compileRedactions } from '../main/engine/redact.js';
import { CassetteStore } from '../main/engine/cassette/store.js';
import type { Log } from '../main/engine/log.js';
import { Recorder } from '../main/engine/pipeline/record/recorder.js';
import type { RepeatPolicy } from '../shared/replay-repeat.js';
import { Replayer } from '../main/engine/pipeline/replay/replayer.js';
import { SessionRegistry, type Session } from '../main/engine/pipeline/core/session.js';

/** The engine's cassette pieces one wrapped transport uses: the store, and the replayer and/or recorder of its mode. */
export interface CassetteSources {
  store: CassetteStore;
  replayer?: Replayer;
  recorder?: Recorder;
  /** the client's one session (replay cursors, negotiated revision, the key follow-up notifications are filed after) */
  session: Session;
  close(): Promise<void>;
}

export interface SourceOptions {
  /** a mode that has a cassette (MODE_TRAITS usesCassette) */
  mode: Mode;
  cassette: string;
  strict: boolean;
  matchIgnore?: string[];
  repeat?: RepeatPolicy;
  redact?: string[];
  durable: boolean;
  onMiss: (miss: ReplayMiss) => void;
  log: Log;
}

/**
 * Opens a cassette the way the endpoint factory does for a mode (by its traits, src/shared/modes.ts): replay and hybrid
 * get the engine's Replayer (its matching, cursors, miss answers), record and hybrid its Recorder (its keys,
 * de-duplication, redaction, atomic durable writes) — so a cassette written here is the CLI's, and the reverse.
 * Replay never creates a cassette: a missing one is a CassetteMissingError.
 */
export async function openSources(o: SourceOptions): Promise<CassetteSources> {
  const { replays, records, cassetteOnly } = MODE_TRAITS[o.mode];
  const store = await CassetteStore.start(o.cassette, {
    create: records,
    log: o.log,
    loose: replays ? { ignore: o.matchIgnore ?? [] } : undefined,
    durable: o.durable,
  });
  const replayer = replays
    ? new Replayer(store, {
        repeat: o.repeat,
        matchIgnore: o.matchIgnore,
        strict: o.strict && cassetteOnly,
        onMiss: o.onMiss,
      })
    : undefined;
  const recorder = records
    ? new Recorder(store, buildResultHasher(), compileRedactions(o.redact ?? []), o.log)
    : undefined;
  const session = new SessionRegistry().create(null);
  return {
    store,
    replayer,
    recorder,
    session,
    async close() {
      await recorder?.flush();
      store.close();
    },
  };
}
