import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { bridgeProtocols, createWebSocketApi, type RewindClient, type WebSocketLike } from '../../shared/api-client.js';
import { liveOwner } from './data-owner.js';

/** Where the browser UI keeps its access token (0600, owner-only): only its owner's programs can read it. */
export const uiTokenFile = (dataDir: string): string => join(dataDir, 'ui-token');

/** Why no link to a running UI could be made, in one line for the user. */
export class NoRunningUi extends Error {
  override readonly name = 'NoRunningUi';
}

/**
 * A client of the running UI's API for a local program of the same user (an attached proxy, `mcp-rewind mcp`): the
 * data folder's owner.json names the UI's address, its ui-token file (owner-only) the credential, presented as a
 * WebSocket subprotocol as the page does. Never in argv, never in a URL. The desktop app serves the same local API
 * (src/main/app/index.ts). Fails with NoRunningUi when no app owns the folder, or it names no address.
 */
export async function connectRunningUi(
  dataDir: string,
  options: { queueTimeoutMs?: number } = {},
): Promise<RewindClient> {
  const owner = await liveOwner(dataDir);
  if (!owner) throw new NoRunningUi(`no mcp-rewind ui runs on ${dataDir}`);
  if (!owner.origin) throw new NoRunningUi(`the app (pid ${owner.pid}) on ${dataDir} offers no local API (yet)`);
  let token: string;
  try {
    token = readFileSync(uiTokenFile(dataDir), 'utf8').trim();
  } catch (error) {
    throw new NoRunningUi(
      `cannot read the UI's token in ${dataDir}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`,
    );
  }
  const client = createWebSocketApi({
    url: `${owner.origin.replace(/^http/, 'ws')}/api`,
    protocols: bridgeProtocols(token),
    WebSocket: WebSocket as unknown as new (url: string, protocols?: string[]) => WebSocketLike,
    queueTimeoutMs: options.queueTimeoutMs ?? 5_000,
  });
  await client.call('settings.get', {}); // the link is up and the token taken (else this rejects)
  return client;
}
