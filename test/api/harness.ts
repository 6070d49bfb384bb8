/**
 * Helpers for the UI API tests: a real AppController behind the real handler table, real SDK peers, temp dirs.
 *
 *   afterEach(cleanup);
 *   const { api, controller } = await app();       // api = createApiHandlers(controller, …)
 *   const info = await call(api, 'proxies.create', { mode: 'record', upstreamUrl, cacheDir });
 *
 * Everything made here is closed by cleanup(), newest first.
 */
import { expect } from 'vitest';
import type { ApiError, CommandInput, CommandName, CommandOutput } from '../../src/shared/api.js';
import { AppController } from '../../src/main/api/app-controller.js';
import { createApiHandlers, type ApiHandlers } from '../../src/main/api/handlers.js';
import { connectClient, type ConnectClientOptions, type ConnectedClient } from '../fixtures/client.js';
import { startSdkServer, type SdkServerHandle, type SdkServerOptions } from '../fixtures/sdk-server.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';

const open: Array<{ close(): Promise<void> }> = [];

export function keep<T extends { close(): Promise<void> }>(thing: T): T {
  open.push(thing);
  return thing;
}

export async function cleanup(): Promise<void> {
  for (const thing of open.splice(0).reverse()) await thing.close().catch(() => {});
  await removeTempDirs();
}

export interface TestApp {
  controller: AppController;
  api: ApiHandlers;
  dataDir: string;
  logs: string[];
}

export async function app(): Promise<TestApp> {
  const dataDir = await tempDir('rewind-app-');
  const logs: string[] = [];
  const controller = keep(new AppController({ dataDir, log: (line, level) => void logs.push(`${level}: ${line}`) }));
  return { controller, api: createApiHandlers(controller, { shell: 'browser', version: '0.0.0-test' }), dataDir, logs };
}

/** A typed call through the handler table (what both transports do). */
export function call<C extends CommandName>(
  api: ApiHandlers,
  command: C,
  input: CommandInput<C>,
): Promise<CommandOutput<C>> {
  return api.call(command, input) as Promise<CommandOutput<C>>;
}

/** The ApiError a call rejects with (fails the test if it resolves, or rejects with anything but `{ message }`). */
export async function failure(promise: Promise<unknown>): Promise<string> {
  const outcome = await promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  expect(outcome.ok, `expected a failure, got ${JSON.stringify(outcome.ok && outcome.value)}`).toBe(false);
  const error = (outcome as { error: ApiError }).error;
  expect(error).not.toBeInstanceOf(Error); // a plain { message }: no stack crosses the boundary
  expect(Object.keys(error)).toEqual(['message']);
  expect(typeof error.message).toBe('string');
  return error.message;
}

export const upstream = (options?: SdkServerOptions): Promise<SdkServerHandle> => startSdkServer(options).then(keep);
export const client = (url: string, options?: ConnectClientOptions): Promise<ConnectedClient> =>
  connectClient(url, options).then(keep);

/** The text blocks of a tool result, joined. */
export function textOf(result: unknown): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join('\n');
}
