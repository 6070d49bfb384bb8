/**
 * An upstream's OAuth sign-in as every shell shows it (the CLI's lines, `serve`'s session detail, the app's proxy
 * row). The proxy is the OAuth client of an upstream that answers 401: the client in front of it needs no sign-in.
 */

/** The steps of a sign-in, named in the errors a client gets when one fails. */
export const SIGN_IN_STEPS = ['discovery', 'registration', 'authorization', 'token', 'refresh'] as const;
export type SignInStep = (typeof SIGN_IN_STEPS)[number];

/** What each step is, in words (errors, docs). */
export const SIGN_IN_STEP_WORDS: Record<SignInStep, string> = {
  discovery: 'discovery (protected-resource and authorization server metadata)',
  registration: 'client registration',
  authorization: 'authorization (the browser sign-in)',
  token: 'token exchange',
  refresh: 'token refresh',
};

/**
 * - `none`: no sign-in known, none asked for so far;
 * - `required`: the upstream wants one; `url` is the page to open while the proxy waits for the browser;
 * - `signed-in`: the proxy holds a token (`user` where the server says who, `expiresAt` in ms);
 * - `failed`: the last attempt failed at `step` (`error` says how); the next request tries again;
 * - `client`: the client sends its own Authorization, passed through as it is (the proxy holds no sign-in).
 */
export interface SignInInfo {
  state: 'none' | 'required' | 'signed-in' | 'failed' | 'client';
  url?: string;
  user?: string;
  expiresAt?: number;
  scope?: string;
  step?: SignInStep;
  error?: string;
}
