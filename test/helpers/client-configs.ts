/**
 * A temporary home holding the MCP config files of every client mcp-rewind intercepts, in their real formats (strict
 * JSON, JSONC with comments and trailing commas, TOML with comments), with stdio servers (server-everything from
 * node_modules, with an env var from the file) and HTTP servers. Linux locations: $XDG_CONFIG_HOME for Claude Desktop
 * and VS Code, $HOME for the rest, a project folder for the project files.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { everythingEntry } from '../fixtures/everything.js';
import { tempDir } from './temp.js';

export interface ClientHome {
  home: string;
  project: string;
  /** the env that points the clients' locations at this home */
  env: NodeJS.ProcessEnv;
  /** every file written, by client id */
  files: Record<string, string[]>;
  /** the stdio server every file names: command, args, env */
  server: { command: string; args: string[]; env: Record<string, string> };
}

const q = JSON.stringify;

export async function clientHome(options: { httpUrl?: string; home?: string } = {}): Promise<ClientHome> {
  const home = options.home ?? (await tempDir('rewind-home-'));
  const project = join(home, 'work', 'my project');
  const config = join(home, '.config');
  const server = {
    command: process.execPath,
    args: [everythingEntry(), 'stdio'],
    env: { EVERYTHING_FROM_FILE: 'value from the file "quoted" & spaced' },
  };
  const http = options.httpUrl ?? 'https://mcp.example.com/mcp';
  const stdio = (indent: string): string =>
    `{\n${indent}  "command": ${q(server.command)},\n${indent}  "args": ${q(server.args)},\n${indent}  "env": ${q(server.env)}\n${indent}}`;
  const texts: Record<string, Record<string, string>> = {
    'claude-desktop': {
      [join(config, 'Claude', 'claude_desktop_config.json')]:
        `{\n  "mcpServers": {\n    "everything": ${stdio('    ')}\n  },\n  "globalShortcut": "Ctrl+Space"\n}\n`,
    },
    'claude-code': {
      [join(home, '.claude.json')]:
        `{"numStartups":12,"mcpServers":{"everything":{"type":"stdio","command":${q(server.command)},"args":${q(server.args)},"env":${q(server.env)}}},"projects":{${q(project)}:{"allowedTools":[],"mcpServers":{"remote":{"type":"http","url":${q(http)},"headers":{"X-Team":"a"}}}}}}`,
      [join(project, '.mcp.json')]: `{\n  "mcpServers": {\n    "project-everything": ${stdio('    ')}\n  }\n}\n`,
    },
    cursor: {
      [join(home, '.cursor', 'mcp.json')]:
        `{\n  "mcpServers": {\n    "everything": ${stdio('    ')},\n    "remote": { "url": ${q(http)} }\n  }\n}\n`,
    },
    vscode: {
      [join(config, 'Code', 'User', 'mcp.json')]:
        `// VS Code: my MCP servers\n{\n\t"servers": {\n\t\t// the reference server\n\t\t"everything": {\n\t\t\t"type": "stdio",\n\t\t\t"command": ${q(server.command)},\n\t\t\t"args": ${q(server.args)}, // stdio mode\n\t\t\t"env": ${q(server.env)},\n\t\t},\n\t\t"remote": { "type": "http", "url": ${q(http)} }, /* trailing comma next */\n\t},\n\t"inputs": [],\n}\n`,
      [join(project, '.vscode', 'mcp.json')]: `{\n  "servers": {\n    /* none yet */\n  }\n}\n`,
    },
    windsurf: {
      [join(home, '.codeium', 'windsurf', 'mcp_config.json')]:
        `{\n  "mcpServers": {\n    "everything": ${stdio('    ')},\n    "remote": {\n      "serverUrl": ${q(http)}\n    }\n  }\n}\n`,
    },
    gemini: {
      [join(home, '.gemini', 'settings.json')]:
        `{\n  // Gemini CLI settings\n  "theme": "Dracula",\n  "mcpServers": {\n    "everything": {\n      "command": ${q(server.command)},\n      "args": ${q(server.args)},\n      "env": ${q(server.env)},\n      "timeout": 30000\n    },\n    "remote": { "httpUrl": ${q(http)}, "headers": { "Authorization": "Bearer not-a-real-token" } }\n  }\n}\n`,
    },
    codex: {
      [join(home, '.codex', 'config.toml')]: [
        '# Codex configuration',
        'model = "o4-mini"',
        '',
        '# the reference server, over stdio',
        '[mcp_servers.everything]',
        `command = ${q(server.command)} # node`,
        `args = [${server.args.map((a) => q(a)).join(', ')}]`,
        `env = { "EVERYTHING_FROM_FILE" = ${q(server.env.EVERYTHING_FROM_FILE)} }`,
        '',
        '[mcp_servers.remote]',
        `url = ${q(http)}`,
        'bearer_token_env_var = "REMOTE_TOKEN"',
        '',
      ].join('\n'),
    },
  };
  const files: Record<string, string[]> = {};
  for (const [client, byPath] of Object.entries(texts)) {
    files[client] = Object.keys(byPath);
    for (const [path, text] of Object.entries(byPath)) {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, text);
    }
  }
  const env = {
    HOME: home,
    USERPROFILE: home,
    XDG_CONFIG_HOME: config,
    APPDATA: join(home, 'AppData', 'Roaming'),
    CODEX_HOME: '',
  };
  return { home, project, env, files, server };
}
