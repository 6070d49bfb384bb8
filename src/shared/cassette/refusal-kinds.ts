// A module of its own, without zod: the engine's cassette keys (keys.ts) name these on the start path; entry.ts's
// schema checks them.

/**
 * What a server answers outside any request's answer — a refusal of the whole POST at the HTTP level, its JSON-RPC
 * error carrying `id: null` — filed once per kind (key `refusal_<kind>`), so replay refuses the same requests the
 * way the recorded server did.
 */
export const REFUSAL_KINDS = [
  'invalid-message',
  'parse-error',
  'session-not-found',
  'unsupported-protocol-version',
  'not-initialized',
  'not-acceptable',
  'delete-not-allowed',
  'batch-refused',
] as const;
export type RefusalKind = (typeof REFUSAL_KINDS)[number];
