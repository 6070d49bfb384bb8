import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The user data folder of mcp-rewind (settings, saved proxies), shared by the browser shell (`mcp-rewind ui`) and the
 * Electron shell so both see the same state: %APPDATA%\mcp-rewind on Windows, ~/Library/Application Support/mcp-rewind
 * on macOS, $XDG_DATA_HOME/mcp-rewind or ~/.local/share/mcp-rewind elsewhere. MCP_REWIND_DATA_DIR overrides it.
 */
export function userDataDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = homedir(),
): string {
  if (env.MCP_REWIND_DATA_DIR) return env.MCP_REWIND_DATA_DIR;
  if (platform === 'win32') return join(env.APPDATA || join(home, 'AppData', 'Roaming'), 'mcp-rewind');
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'mcp-rewind');
  return join(env.XDG_DATA_HOME || join(home, '.local', 'share'), 'mcp-rewind');
}
