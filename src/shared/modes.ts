export const MODES = ['record', 'replay', 'hybrid', 'proxy-only'] as const;
/** How a proxy answers: record (forward, store), replay (cassette only), hybrid (cassette, else forward and store), proxy-only (forward). */
export type Mode = (typeof MODES)[number];

/** Does this mode talk to an upstream server? */
export const isLive = (mode: Mode): boolean => mode !== 'replay';
/** Does this mode read answers from the cassette? */
export const readsCassette = (mode: Mode): boolean => mode === 'replay' || mode === 'hybrid';
/** Does this mode write new entries into the cassette? */
export const writesCassette = (mode: Mode): boolean => mode === 'record' || mode === 'hybrid';
