import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import type { Settings } from '../src/shared/settings.js';
import { expect } from './shell.js';

// Shared steps of the inspector specs (issue 25): a proxy made through the New proxy dialog, a HAR file written the
// way a browser's network panel saves one, opening a file into the timeline, reading settings.json.

/** Creates a proxy through the New proxy dialog; answers its line in the proxies bar once the dialog closed. */
export async function newProxy(
  page: Page,
  fields: { mode: string; name: string; upstreamUrl?: string; cacheDir?: string },
): Promise<Locator> {
  await page.getByRole('button', { name: 'New proxy', exact: true }).click();
  const form = page.getByRole('form', { name: 'New proxy' });
  await form.getByLabel('Mode').selectOption(fields.mode);
  if (fields.upstreamUrl !== undefined) await form.getByLabel('Upstream URL').fill(fields.upstreamUrl);
  if (fields.cacheDir !== undefined) await form.getByLabel('Cassette folder').fill(fields.cacheDir);
  await form.getByLabel('Name').fill(fields.name);
  await form.getByRole('button', { name: 'Create proxy' }).click();
  await expect(form).toBeHidden({ timeout: 15_000 });
  return page.getByRole('list', { name: 'Proxy list' }).getByRole('listitem', { name: `Proxy ${fields.name}` });
}

export interface HarCall {
  tool: string;
  /** the text of the tool's answer */
  text: string;
  /** ms to the answer */
  ms: number;
  /** epoch ms of the request */
  at: number;
}

/** A HAR 1.2 file of MCP tools/call POSTs (JSON answers), as a browser-based MCP client's network panel saves it. */
export function writeHar(path: string, calls: HarCall[]): void {
  const entries = calls.map((c, i) => ({
    startedDateTime: new Date(c.at).toISOString(),
    time: c.ms,
    request: {
      method: 'POST',
      url: 'http://127.0.0.1:3001/mcp',
      headers: [{ name: 'content-type', value: 'application/json' }],
      postData: {
        mimeType: 'application/json',
        text: JSON.stringify({
          jsonrpc: '2.0',
          id: i + 1,
          method: 'tools/call',
          params: { name: c.tool, arguments: { n: i } },
        }),
      },
    },
    response: {
      status: 200,
      headers: [{ name: 'content-type', value: 'application/json' }],
      content: {
        mimeType: 'application/json',
        text: JSON.stringify({ jsonrpc: '2.0', id: i + 1, result: { content: [{ type: 'text', text: c.text }] } }),
      },
    },
    timings: { send: 0, wait: c.ms, receive: 0 },
  }));
  writeFileSync(path, JSON.stringify({ log: { version: '1.2', creator: { name: 'e2e', version: '1' }, entries } }));
}

/** Opens a file into the timeline (Open…); answers its line in the proxies bar. */
export async function openFile(page: Page, path: string, name: string): Promise<Locator> {
  await page.getByRole('button', { name: 'Open…' }).click();
  const form = page.getByRole('form', { name: 'Open into the timeline' });
  await form.getByLabel('Path').fill(path);
  await form.getByRole('button', { name: 'Open', exact: true }).click();
  await expect(form).toBeHidden({ timeout: 20_000 });
  return page.getByRole('list', { name: 'Proxy list' }).getByRole('listitem', { name: `File ${name}` });
}

/** The number a counter shows ("12 of 40" → 12). */
export const shownCount = async (page: Page): Promise<number> =>
  Number(/^(\d+)/.exec((await page.getByTestId('filter-count').textContent()) ?? '')?.[1] ?? NaN);

/** Replaces a CodeMirror editor's whole text (inserted as-is: no auto-closed brackets). */
export async function replaceEditorText(page: Page, label: string, text: string): Promise<void> {
  await page.getByLabel(label, { exact: true }).click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.insertText(text);
}

/**
 * settings.json as it is on disk now: {} before the first change writes it. Never throws, because expect.poll
 * stops at the first throw instead of polling again (a read just before the engine's first write failed the test).
 */
export function savedSettings(dataDir: string): Partial<Settings> {
  try {
    return JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')) as Partial<Settings>;
  } catch {
    return {};
  }
}
