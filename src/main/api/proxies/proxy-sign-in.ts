import type { CommandOutputs, ProxyConfig, ProxyInfo } from '../../../shared/api.js';
import { MODE_TRAITS } from '../../../shared/modes.js';
import type { SignInInfo } from '../../../shared/sign-in.js';
import type { Log } from '../../engine/log.js';
import { CredentialStore, hasOwnCredentials } from '../../engine/upstream/oauth/credentials.js';
import { signInFor, type UpstreamSignIn } from '../../engine/upstream/oauth/sign-in.js';

/**
 * The app's proxies and their upstreams' OAuth sign-ins: a proxy in front of a URL is the OAuth client of that URL
 * (unless its config says `oauth.disabled`), with the tokens in the app's data folder — the same ones the CLI uses.
 */

/** The sign-in of a proxy's upstream, or none (replay, a command, OAuth disabled). */
export function proxySignIn(config: ProxyConfig, dataDir: string, log: Log): UpstreamSignIn | undefined {
  if (
    !MODE_TRAITS[config.mode].forwards ||
    !config.upstreamUrl ||
    config.oauth?.disabled ||
    hasOwnCredentials(config.upstreamUrl)
  )
    return undefined;
  const client = config.oauth?.clientId ? { clientId: config.oauth.clientId } : undefined;
  return signInFor(config.upstreamUrl, { store: new CredentialStore(dataDir), client, log });
}

/** Whether a listening proxy is running or waits for a sign-in, given what its upstream asked and the sign-in's state. */
export function signInState(
  needsSignIn: boolean,
  info: SignInInfo,
): Extract<ProxyInfo['state'], 'running' | 'sign-in-required'> {
  if (info.state === 'required' || info.state === 'failed') return 'sign-in-required';
  return needsSignIn && info.state !== 'signed-in' ? 'sign-in-required' : 'running';
}

/** What the app keeps of a proxy that is the OAuth client of its upstream (AppController's managed proxy). */
export interface SignedProxy {
  info: ProxyInfo;
  running?: unknown;
  signIn?: UpstreamSignIn;
  /** the upstream asked for a sign-in (a 401 at start, or since) */
  needsSignIn?: boolean;
  offSignIn?: () => void;
}

/**
 * A running proxy's state follows its upstream's sign-in: *sign-in required* until the token arrives, or until a
 * client's own Authorization gets through (`client`: the start probe's 401 no longer counts), then *running*.
 */
export function followSignIn(proxy: SignedProxy, changed: () => void): void {
  const signIn = proxy.signIn;
  if (!signIn) return;
  const apply = (): void => {
    const info = signIn.info();
    if (info.state === 'required') proxy.needsSignIn = true;
    else if (info.state === 'client') proxy.needsSignIn = false; // a client's own token got through: no sign-in needed
    proxy.info = {
      ...proxy.info,
      state: signInState(proxy.needsSignIn === true, info),
      signIn: info.state === 'none' ? undefined : info,
    };
  };
  apply();
  proxy.offSignIn = signIn.onChange(() => {
    if (!proxy.running) return;
    apply();
    changed();
  });
}

/** The Sign in button: starts (or joins) the sign-in; `openUrl` (the desktop app) opens the page, else the UI does. */
export async function beginSignIn(
  signIn: UpstreamSignIn | undefined,
  name: string,
  openUrl?: (url: string) => void,
): Promise<CommandOutputs['proxies.signIn']> {
  if (!signIn) throw new Error(`id: proxy "${name}" has no upstream to sign in to while it is not running`);
  const url = await signIn.begin();
  if (url && openUrl) openUrl(url);
  return { url, opened: Boolean(url && openUrl) };
}
