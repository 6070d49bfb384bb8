import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ClientId, ConfigFormat } from '../../shared/intercept.js';

/**
 * The MCP clients mcp-rewind knows, and where each keeps its servers: user files per OS (honouring HOME / USERPROFILE,
 * APPDATA, XDG_CONFIG_HOME, CODEX_HOME, so a test can point them at a temporary home) and project files in the
 * project folders given. Read only here.
 */

/** Where in a file the servers are: a JSON path to an object of servers, or TOML's table name. */
export interface ServerContainer {
  path: string[];
  scope: 'user' | 'project' | 'local';
  project?: string;
}

export interface ConfigLocation {
  client: ClientId;
  path: string;
  format: ConfigFormat;
  /** the containers, or a function of the parsed file for files whose containers depend on it (~/.claude.json) */
  containers: ServerContainer[] | ((parsed: unknown) => ServerContainer[]);
}

export interface ClientInfo {
  id: ClientId;
  label: string;
  applyHint: string;
}

export const CLIENTS: Record<ClientId, ClientInfo> = {
  'claude-desktop': {
    id: 'claude-desktop',
    label: 'Claude Desktop',
    applyHint: 'restart Claude Desktop to apply (quit it from its menu, not just the window)',
  },
  'claude-code': {
    id: 'claude-code',
    label: 'Claude Code',
    applyHint: 'restart Claude Code (or its session) to apply',
  },
  cursor: {
    id: 'cursor',
    label: 'Cursor',
    applyHint: 'Cursor reloads mcp.json when it changes; if not, toggle the server in Settings → MCP',
  },
  vscode: {
    id: 'vscode',
    label: 'VS Code',
    applyHint: 'VS Code reloads mcp.json when it changes; restart the server from mcp.json if it keeps running',
  },
  windsurf: {
    id: 'windsurf',
    label: 'Windsurf',
    applyHint: 'press Refresh in Windsurf’s MCP panel (or restart Windsurf) to apply',
  },
  gemini: { id: 'gemini', label: 'Gemini CLI', applyHint: 'restart Gemini CLI to apply' },
  codex: { id: 'codex', label: 'Codex CLI', applyHint: 'restart Codex to apply' },
};

export interface LocateContext {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  /** project folders whose own files are read too (the working folder, the projects Claude Code knows) */
  projects: string[];
  /** more home folders whose user files are read too (another user's, a test's), as the process's HOME is */
  homes?: string[];
}

export function homeOf(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string {
  return (platform === 'win32' ? env.USERPROFILE || env.HOME : env.HOME) || homedir();
}

/** Application settings folders: %APPDATA%, ~/Library/Application Support, $XDG_CONFIG_HOME (~/.config). */
function appConfigDir(context: LocateContext, home: string): string {
  const { env, platform } = context;
  if (platform === 'win32') return env.APPDATA || join(home, 'AppData', 'Roaming');
  if (platform === 'darwin') return join(home, 'Library', 'Application Support');
  return env.XDG_CONFIG_HOME || join(home, '.config');
}

const user = (path: string[]): ServerContainer[] => [{ path, scope: 'user' }];
const project = (dir: string, path: string[]): ServerContainer[] => [{ path, scope: 'project', project: dir }];

/** ~/.claude.json: user servers at the top, each project's own under projects.<folder>.mcpServers. */
export function claudeCodeContainers(parsed: unknown): ServerContainer[] {
  const containers: ServerContainer[] = user(['mcpServers']);
  const projects = (parsed as { projects?: unknown } | undefined)?.projects;
  if (projects && typeof projects === 'object' && !Array.isArray(projects))
    for (const dir of Object.keys(projects))
      containers.push({ path: ['projects', dir, 'mcpServers'], scope: 'local', project: dir });
  return containers;
}

/** Every config file the clients may have, found or not: the user files of each home, then each project's own. */
export function configLocations(context: LocateContext): ConfigLocation[] {
  const home = homeOf(context.env, context.platform);
  const own = userLocations(home, appConfigDir(context, home), context.env.CODEX_HOME || join(home, '.codex'));
  // another home: the platform's folders under it (this process's APPDATA, XDG_CONFIG_HOME, CODEX_HOME are its own)
  const others = [...new Set(context.homes ?? [])]
    .filter((h) => h !== home)
    .flatMap((h) => userLocations(h, appConfigDir({ ...context, env: {} }, h), join(h, '.codex')));
  const seen = new Set<string>(); // a folder added both as a home and a project: its files once
  return [...own, ...others, ...projectLocations(context.projects)].filter(
    (l) => !seen.has(l.path) && seen.add(l.path),
  );
}

function userLocations(home: string, appDir: string, codexHome: string): ConfigLocation[] {
  return [
    {
      client: 'claude-desktop',
      path: join(appDir, 'Claude', 'claude_desktop_config.json'),
      format: 'json',
      containers: user(['mcpServers']),
    },
    { client: 'claude-code', path: join(home, '.claude.json'), format: 'json', containers: claudeCodeContainers },
    { client: 'cursor', path: join(home, '.cursor', 'mcp.json'), format: 'jsonc', containers: user(['mcpServers']) },
    {
      client: 'vscode',
      path: join(appDir, 'Code', 'User', 'mcp.json'),
      format: 'jsonc',
      containers: user(['servers']),
    },
    {
      client: 'windsurf',
      path: join(home, '.codeium', 'windsurf', 'mcp_config.json'),
      format: 'json',
      containers: user(['mcpServers']),
    },
    {
      client: 'gemini',
      path: join(home, '.gemini', 'settings.json'),
      format: 'jsonc',
      containers: user(['mcpServers']),
    },
    { client: 'codex', path: join(codexHome, 'config.toml'), format: 'toml', containers: user(['mcp_servers']) },
  ];
}

function projectLocations(projects: string[]): ConfigLocation[] {
  const found: ConfigLocation[] = [];
  for (const dir of new Set(projects)) {
    found.push(
      { client: 'claude-code', path: join(dir, '.mcp.json'), format: 'json', containers: project(dir, ['mcpServers']) },
      {
        client: 'cursor',
        path: join(dir, '.cursor', 'mcp.json'),
        format: 'jsonc',
        containers: project(dir, ['mcpServers']),
      },
      {
        client: 'vscode',
        path: join(dir, '.vscode', 'mcp.json'),
        format: 'jsonc',
        containers: project(dir, ['servers']),
      },
      {
        client: 'gemini',
        path: join(dir, '.gemini', 'settings.json'),
        format: 'jsonc',
        containers: project(dir, ['mcpServers']),
      },
      {
        client: 'codex',
        path: join(dir, '.codex', 'config.toml'),
        format: 'toml',
        containers: project(dir, ['mcp_servers']),
      },
    );
  }
  return found;
}
