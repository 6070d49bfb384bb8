import { startSdkServer } from '../test/fixtures/sdk-server.js';
import { expect, test } from './shell.js';

// The New proxy dialog (issue 20: one mode table, one proxy configuration schema) in real Chromium against the real
// engine: the fields a mode has follow what the mode does with an upstream and a cassette, and every problem shown
// beside a field is the schema's, in the words the app's API uses too.

const MISSING = (mode: string): string => `give the upstream server’s URL, or a stdio command, in ${mode} mode`;

test('the fields follow the mode; each problem is the one schema’s, beside its field; a good draft makes a running proxy', async ({
  app,
}) => {
  const { page, problems } = app;
  await app.open();
  await page.getByRole('button', { name: 'New proxy', exact: true }).click();
  const form = page.getByRole('form', { name: 'New proxy' });
  const mode = form.getByLabel('Mode');
  const parts = async (): Promise<Record<string, number>> => ({
    upstream: await form.getByRole('radiogroup', { name: 'Upstream' }).count(),
    cassette: await form.getByLabel('Cassette folder').count(),
    timing: await form.getByLabel('Replay timing').count(),
  });

  // what each mode does decides what it asks for
  await expect.poll(parts).toEqual({ upstream: 1, cassette: 1, timing: 0 }); // record, the default
  await mode.selectOption('replay');
  await expect.poll(parts).toEqual({ upstream: 0, cassette: 1, timing: 1 });
  await expect(form.getByText('must exist: replay never creates a cassette')).toBeVisible();
  await mode.selectOption('hybrid');
  await expect.poll(parts).toEqual({ upstream: 1, cassette: 1, timing: 1 });
  await expect(form.getByText('must exist: replay never creates a cassette')).toHaveCount(0);
  await mode.selectOption('proxy-only');
  await expect.poll(parts).toEqual({ upstream: 1, cassette: 0, timing: 0 });

  // Create with no upstream: the schema's sentence beside the source shown, the URL or the stdio command
  await form.getByRole('button', { name: 'Create proxy' }).click();
  await expect(form.getByLabel('Upstream URL')).toHaveAttribute('aria-invalid', 'true');
  await expect(form.getByRole('alert')).toHaveText(MISSING('proxy-only'));
  const source = form.getByRole('radiogroup', { name: 'Upstream' });
  await source.getByText('stdio command').click();
  await expect(form.getByRole('textbox', { name: 'stdio command' })).toHaveAttribute('aria-invalid', 'true');
  await expect(form.getByRole('alert')).toHaveText(MISSING('proxy-only'));
  await source.getByText('URL (HTTP)').click();

  // a port that is not a number: the schema's words for the port
  await form.getByLabel('Port').fill('80a');
  await expect(
    form.getByRole('alert').filter({ hasText: 'a whole number from 0 to 65535 (empty or 0: any free port)' }),
  ).toBeVisible();
  await form.getByLabel('Port').fill('');

  const upstream = await startSdkServer();
  try {
    await form.getByLabel('Upstream URL').fill(upstream.url);
    await form.getByLabel('Name').fill('through');
    await expect(form.getByRole('alert')).toHaveCount(0);
    await form.getByRole('button', { name: 'Create proxy' }).click();
    await expect(form).toBeHidden({ timeout: 15_000 });
    const row = page.getByRole('list', { name: 'Proxy list' }).getByRole('listitem', { name: 'Proxy through' });
    await expect(row.getByText('running')).toBeVisible({ timeout: 15_000 });
    await expect(row).toContainText(upstream.url); // what a forwarding proxy stands in front of: its upstream

    // opened again, the dialog starts afresh (record, nothing filled, no problem shown)
    await page.getByRole('button', { name: 'New proxy', exact: true }).click();
    await expect(mode).toHaveValue('record');
    await expect(form.getByLabel('Upstream URL')).toHaveValue('');
    await expect(form.getByRole('alert')).toHaveCount(0);
    await form.getByRole('button', { name: 'Cancel' }).click();
  } finally {
    await upstream.close();
  }
  expect(problems).toEqual([]);
});
