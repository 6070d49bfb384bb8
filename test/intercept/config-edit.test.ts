import { describe, expect, it } from 'vitest';
import { configLocations } from '../../src/main/intercept/clients.js';
import { MalformedConfig, openConfigDoc } from '../../src/main/intercept/config-doc.js';
import { transportOf, unwrapStdio, wrappedArgs } from '../../src/main/intercept/entry.js';
import { applyReverse, reversePatch } from '../../src/main/intercept/ledger.js';

// The edits Intercept makes to clients' config files: only the value changed, every comment and byte around it kept.

describe('TOML edits (Codex config.toml)', () => {
  const toml = [
    '# top comment',
    '[mcp_servers.a]',
    'command = "npx" # trailing',
    'env = { "K" = "v" }',
    '',
    '[mcp_servers.b]',
    'url = "http://x"',
    '',
  ].join('\n');

  it('replaces one value and keeps comments, blank lines and the other tables', () => {
    const out = openConfigDoc(toml, 'toml').set(['mcp_servers', 'a', 'command'], { value: 'node' });
    expect(out).toBe(toml.replace('command = "npx"', 'command = "node"'));
  });

  it('adds a missing key as one line in its table, after the table’s last key', () => {
    const out = openConfigDoc(toml, 'toml').set(['mcp_servers', 'a', 'args'], { value: ['-y', 'a "quoted"\\path'] });
    expect(out).toBe(
      toml.replace('env = { "K" = "v" }\n', 'env = { "K" = "v" }\nargs = ["-y", "a \\"quoted\\"\\\\path"]\n'),
    );
    expect((openConfigDoc(out, 'toml').value as { mcp_servers: { a: { args: string[] } } }).mcp_servers.a.args).toEqual(
      ['-y', 'a "quoted"\\path'],
    );
  });

  it('adds to an inline table and to dotted keys, and removes what it added', () => {
    const inline = '[mcp_servers]\na = { command = "npx" }\n';
    const added = openConfigDoc(inline, 'toml').set(['mcp_servers', 'a', 'args'], { value: ['x'] });
    expect(added).toBe('[mcp_servers]\na = { command = "npx", args = ["x"] }\n');
    expect(openConfigDoc(added, 'toml').set(['mcp_servers', 'a', 'args'], undefined)).toBe(inline);
    const dotted = '[mcp_servers]\na.command = "npx"\n';
    const more = openConfigDoc(dotted, 'toml').set(['mcp_servers', 'a', 'args'], { value: [] });
    expect(more).toBe('[mcp_servers]\na.command = "npx"\na.args = []\n');
    expect(openConfigDoc(more, 'toml').set(['mcp_servers', 'a', 'args'], undefined)).toBe(dotted);
  });

  it('reports malformed TOML with its place', () => {
    expect(() => openConfigDoc('[a]\nx = \n', 'toml')).toThrow(MalformedConfig);
    expect(() => openConfigDoc('[a]\nx = \n', 'toml')).toThrow(/not valid TOML: .* at line \d+, column \d+/);
  });
});

describe('JSON and JSONC edits', () => {
  it('JSONC: a value replaced, comments and trailing commas kept', () => {
    const text = '{\n  // servers\n  "servers": {\n    "a": { "command": "npx", /* why */ "args": ["x"], },\n  },\n}\n';
    const out = openConfigDoc(text, 'jsonc').set(['servers', 'a', 'command'], { value: 'node' });
    expect(out).toBe(text.replace('"command": "npx"', '"command": "node"'));
  });

  it('strict JSON refuses comments and trailing commas, naming the place', () => {
    expect(() => openConfigDoc('{ "a": 1, }', 'json')).toThrow(/not valid JSON: .* at line 1, column \d+/);
    expect(() => openConfigDoc('{ /* c */ "a": 1 }', 'json')).toThrow(MalformedConfig);
    expect(() => openConfigDoc('[1]', 'json')).toThrow(/not a JSON object/);
  });

  it('a raw value is put back as it was written (a restore keeps the original formatting)', () => {
    const text = '{"a":{"args":[ "x",\n "y" ]}}';
    const doc = openConfigDoc(text, 'json');
    const raw = doc.raw(['a', 'args'])!;
    const changed = doc.set(['a', 'args'], { value: ['z'] });
    expect(openConfigDoc(changed, 'json').set(['a', 'args'], { raw })).toBe(text);
  });

  it('the reverse patch turns the file after a change back into the bytes before', () => {
    const before = '{\n  "a": 1,\n  "b": [1, 2]\n}\n';
    const after = openConfigDoc(before, 'json').set(['b'], { value: ['changed'] });
    expect(applyReverse(after, [reversePatch(before, after)])).toBe(before);
  });
});

describe('entries', () => {
  it('a wrapped entry carries the original command and args word for word after --, and reads back', () => {
    const original = { command: 'npx', args: ['-y', 'server', '${workspaceFolder}/a b', '--'] };
    const args = wrappedArgs({ command: '/usr/bin/node', args: ['/x/bin/mcp-rewind.js'] }, 'cursor:s', original, {
      dataDir: '/d',
      record: '/r',
    });
    const wrapped = transportOf({ command: '/usr/bin/node', args, env: { K: 'v' } });
    expect(unwrapStdio(wrapped as never)).toEqual({ name: 'cursor:s', record: '/r', original });
    expect(unwrapStdio(transportOf({ command: 'npx', args: ['--', 'x'] }) as never)).toBeUndefined(); // not ours
  });

  it('reads each client’s URL field and legacy SSE', () => {
    expect(transportOf({ serverUrl: 'http://w' })).toEqual({ kind: 'http', url: 'http://w' });
    expect(transportOf({ httpUrl: 'http://g', headers: { A: 'b' } }, 'gemini')).toEqual({
      kind: 'http',
      url: 'http://g',
      headers: { A: 'b' },
    });
    expect(transportOf({ url: 'http://g' }, 'gemini')).toEqual({ kind: 'http', url: 'http://g', sse: true });
    expect(transportOf({ type: 'sse', url: 'http://c' }, 'claude-code')).toEqual({
      kind: 'http',
      url: 'http://c',
      sse: true,
    });
    expect(transportOf({ url: 'http://x', http_headers: { H: '1' } }, 'codex')).toEqual({
      kind: 'http',
      url: 'http://x',
      headers: { H: '1' },
    });
    expect(transportOf({ command: 'x', args: [1] })).toMatch(/not a list of strings/);
  });
});

describe('config locations per OS', () => {
  const paths = (platform: NodeJS.Platform, env: NodeJS.ProcessEnv): Record<string, string> =>
    Object.fromEntries(configLocations({ env, platform, projects: [] }).map((l) => [`${l.client}`, l.path]));

  it('honours APPDATA on Windows, Application Support on macOS, XDG_CONFIG_HOME on Linux, and CODEX_HOME', () => {
    const win = paths('win32', { USERPROFILE: '/users/me', APPDATA: '/users/me/roaming' });
    expect(win['claude-desktop']).toMatch(/^\/users\/me\/roaming[/\\]Claude[/\\]claude_desktop_config\.json$/);
    expect(win.vscode).toMatch(/roaming[/\\]Code[/\\]User[/\\]mcp\.json$/);
    expect(win.cursor).toMatch(/^\/users\/me[/\\]\.cursor[/\\]mcp\.json$/);
    const mac = paths('darwin', { HOME: '/Users/me' });
    expect(mac['claude-desktop']).toMatch(/^\/Users\/me[/\\]Library[/\\]Application Support[/\\]Claude[/\\]/);
    const linux = paths('linux', { HOME: '/home/me', XDG_CONFIG_HOME: '/xdg', CODEX_HOME: '/codex' });
    expect(linux['claude-desktop']).toMatch(/^\/xdg[/\\]Claude[/\\]/);
    expect(linux.codex).toMatch(/^\/codex[/\\]config\.toml$/);
    expect(linux.windsurf).toMatch(/^\/home\/me[/\\]\.codeium[/\\]windsurf[/\\]mcp_config\.json$/);
  });
});
