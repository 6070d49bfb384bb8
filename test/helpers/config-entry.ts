/**
 * A client config entry read the way its client reads it (JSON.parse, VS Code's JSONC parser, a TOML parser), and a
 * real SDK client that launches it exactly as the entry says: command, args, env — as Claude Desktop or Cursor would.
 */
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { parse as parseJsonc } from 'jsonc-parser';
import { getStaticTOMLValue, parseTOML } from 'toml-eslint-parser';

export interface StdioEntry {
  command: string;
  args?: string[];
  env?: Record<string, string>;
}

/** The entry at `path` (keys) of a config file, parsed by its format. */
export function entryOf(file: string, path: string[]): StdioEntry & Record<string, unknown> {
  const text = readFileSync(file, 'utf8');
  const root: unknown = file.endsWith('.toml')
    ? getStaticTOMLValue(parseTOML(text))
    : file.endsWith('.json') && /Code|\.cursor|\.gemini/.test(file)
      ? parseJsonc(text)
      : JSON.parse(text);
  return path.reduce<unknown>((at, key) => (at as Record<string, unknown>)[key], root) as StdioEntry &
    Record<string, unknown>;
}

/** What a client gets from server-everything: its tools, an echo, a sum and the env var the file set. */
export async function answersOf(
  entry: StdioEntry,
  clientName = 'config-entry-test',
): Promise<{ tools: string[]; echo: unknown; sum: unknown; env: string }> {
  const client = new Client({ name: clientName, version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: entry.command,
    args: entry.args ?? [],
    env: entry.env,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  try {
    await client.connect(transport);
    const tools = (await client.listTools()).tools.map((t) => t.name).sort();
    const echo = (await client.callTool({ name: 'echo', arguments: { message: 'through the wrapped entry' } })).content;
    const sum = (await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 40 } })).content;
    const envText = JSON.stringify((await client.callTool({ name: 'get-env', arguments: {} })).content);
    return { tools, echo, sum, env: envText };
  } catch (error) {
    throw new Error(`${(error as Error).message}\nstderr of ${entry.command}:\n${stderr}`, { cause: error });
  } finally {
    await client.close().catch(() => {});
  }
}
