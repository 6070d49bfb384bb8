import { z } from 'zod';

/**
 * Intercept: the MCP clients on this machine, the servers their config files name, and whether each goes through
 * mcp-rewind. Data only (the engine side reads and edits the files: src/main/intercept).
 */

export const CLIENT_IDS = ['claude-desktop', 'claude-code', 'cursor', 'vscode', 'windsurf', 'gemini', 'codex'] as const;
export type ClientId = (typeof CLIENT_IDS)[number];

export type ConfigFormat = 'json' | 'jsonc' | 'toml';

/** How a server is reached, as its config entry says. */
export type ServerTransport =
  | { kind: 'stdio'; command: string; args: string[]; env?: Record<string, string>; cwd?: string }
  | { kind: 'http'; url: string; headers?: Record<string, string>; sse?: boolean };

/**
 * direct: the client talks to the server itself; intercepted: the entry goes through mcp-rewind (`watching`: the app
 * sees its traffic now — an attached process is connected, or the HTTP proxy runs).
 */
export type InterceptState = 'direct' | 'intercepted';

export interface InterceptServer {
  /** `<client>:<server>`, what `intercept wrap` takes */
  target: string;
  name: string;
  /** where in the file: user, project (a project's own file) or local (Claude Code's per-project servers) */
  scope: 'user' | 'project' | 'local';
  /** the project folder of a project or local entry */
  project?: string;
  /** as the file says now (wrapped: what mcp-rewind runs in front of) */
  transport: ServerTransport;
  state: InterceptState;
  /** the original, for an intercepted server */
  original?: ServerTransport;
  /** intercepted and the app sees it now (attached processes connected, or its HTTP proxy runs) */
  watching?: boolean;
  /** the app's proxy that shows this server's traffic */
  proxyId?: string;
}

export interface InterceptFile {
  path: string;
  format: ConfigFormat;
  /** why it cannot be read or changed (malformed, unreadable): listed, never rewritten */
  error?: string;
  /** entries that were not read as servers (the rest of the file is usable) */
  problems?: string[];
  servers: InterceptServer[];
}

export interface InterceptClient {
  id: ClientId;
  label: string;
  /** some config file of the client exists */
  found: boolean;
  files: InterceptFile[];
  /** the files looked for, found or not */
  searched: string[];
  /** what the user must do for a change to apply ("restart Claude Desktop to apply") */
  applyHint: string;
}

/**
 * A folder the user added to look in (the Intercept view's "Look also in", as the CLI's `--project`): a project folder
 * (its own .mcp.json, .cursor/mcp.json, .vscode/mcp.json…) or another home (the user files under it).
 */
export const INTERCEPT_FOLDER_KINDS = ['project', 'home'] as const;
export const InterceptFolderSchema = z.strictObject({
  path: z.string().trim().min(1).max(4096),
  kind: z.enum(INTERCEPT_FOLDER_KINDS),
});
export type InterceptFolder = z.infer<typeof InterceptFolderSchema>;

export interface InterceptList {
  clients: InterceptClient[];
  /** the folders added to look in, kept by the app; `problem`: it is gone or no longer a folder (then not read) */
  folders?: Array<InterceptFolder & { problem?: string }>;
}

/** One file changed by a wrap or unwrap, as it will be written (nothing is written by a plan). */
export interface InterceptChange {
  path: string;
  target: string;
  before: string;
  after: string;
  /** sha256 of `before`: the apply refuses when the file no longer has it (changed by someone else meanwhile) */
  baseHash: string;
}

export interface InterceptPlan {
  action: 'wrap' | 'unwrap';
  changes: InterceptChange[];
  /** servers left as they were, with why (already wrapped, not wrapped, malformed file…) */
  skipped: string[];
  /** what to do for the changes to apply, per client */
  hints: string[];
}

export interface InterceptResult {
  action: 'wrap' | 'unwrap';
  written: Array<{ path: string; target: string; backup?: string; exact?: boolean }>;
  skipped: string[];
  hints: string[];
}

/** Which servers: one (`client:server`, `file` when the name is in several files), or all of a client. */
export const InterceptSelectionSchema = z.strictObject({
  action: z.enum(['wrap', 'unwrap']),
  client: z.enum(CLIENT_IDS),
  server: z.string().min(1).max(500).optional(),
  file: z.string().min(1).max(4096).optional(),
  /** wrap: record the server's traffic to this folder (also with no app running) */
  record: z.string().min(1).max(4096).optional(),
});
export type InterceptSelection = z.infer<typeof InterceptSelectionSchema>;

/** `client:server` → its parts (the server name may hold colons) */
export function parseTarget(target: string): { client: ClientId; server: string } | undefined {
  const at = target.indexOf(':');
  const client = target.slice(0, at) as ClientId;
  const server = target.slice(at + 1);
  return at > 0 && server && (CLIENT_IDS as readonly string[]).includes(client) ? { client, server } : undefined;
}
