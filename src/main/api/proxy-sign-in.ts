import type { ProxyConfig, ProxyInfo } from '../../shared/api.js';
import type { SignInInfo } from '../../shared/sign-in.js';
import type { Log } from '../engine/log.js';
import { CredentialStore } from '../engine/upstream/oauth/credentials.js';
import { signInFor, type UpstreamSignIn } from '../engine/upstream/oauth/sign-in.js';

/**
 * The app's proxies and their upstreams' OAuth sign-ins: a proxy in front of a URL is the OAuth client of that URL
 * (unless its config says `oauth.disabled`), with the tokens in the app's data folder — the same ones the CLI uses.
 */

/** The sign-in of a proxy's upstream, or none (replay, a command, OAuth disabled). */
export function proxySignIn(config: ProxyConfig, dataDir: string, log: Log): UpstreamSignIn | undefined {
  if (config.mode === 'replay' || !config.upstreamUrl || config.oauth?.disabled) return undefined;
  const client = config.oauth?.clientId ? { clientId: config.oauth.clientId } : undefined;
  return signInFor(config.upstreamUrl, { store: new CredentialStore(dataDir), client, log });
}

/** Whether a listening proxy is running or waits for a sign-in, given what its upstream asked and the sign-in's state. */
export function signInState(needsSignIn: boolean, info: SignInInfo): Extract<ProxyInfo['state'], 'running' | 'sign-in-required'> {
  if (info.state === 'required' || info.state === 'failed') return 'sign-in-required';
  return needsSignIn && info.state !== 'signed-in' ? 'sign-in-required' : 'running';
}
