import { CredentialStore, hasOwnCredentials } from '../engine/upstream/oauth/credentials.js';
import { signInFor, type UpstreamSignIn } from '../engine/upstream/oauth/sign-in.js';
import { describeSignIn, type OAuthCliOptions } from './oauth-options.js';
import { openBrowser } from './ui-open.js';

/** The upstream's sign-in in this process (the data folder's tokens), its states printed; none with --no-oauth. */
export function cliSignIn(
  url: string,
  options: OAuthCliOptions,
  log: (line: string) => void,
): UpstreamSignIn | undefined {
  if (!options.enabled || hasOwnCredentials(url)) return undefined;
  const signIn = signInFor(url, {
    store: new CredentialStore(options.dataDir),
    client: options.client,
    callbackPort: options.callbackPort,
    timeoutMs: options.timeoutMs,
  });
  reportSignIn(signIn, options, log);
  return signIn;
}

/** Prints each new sign-in state on stderr (the URL to open, who signed in, the step that failed), and opens the URL. */
export function reportSignIn(
  signIn: UpstreamSignIn,
  options: Pick<OAuthCliOptions, 'open'>,
  log: (line: string) => void,
): () => void {
  let opened: string | undefined;
  return signIn.onChange((info) => {
    if (info.state === 'required' && info.url && info.url !== opened) {
      opened = info.url;
      log(`mcp-rewind: ${signIn.label} needs a sign-in${info.error ? ` (${info.error})` : ''}: open ${info.url}`);
      if (options.open) openBrowser(info.url);
    } else if (info.state === 'signed-in' || info.state === 'failed')
      log(`mcp-rewind: ${describeSignIn(signIn.label, info)}`);
  });
}
