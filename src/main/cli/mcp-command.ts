import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { Command, CommanderError } from 'commander';
import { connectRunningUi, NoRunningUi } from '../web/ui-link.js';
import { userDataDir } from '../web/user-data.js';
import { createAgentServer } from './mcp/agent-server.js';
import { stayUp, writeStderr } from './process-guard.js';

/** `mcp-rewind mcp`: the inspector as an MCP server on stdio, for an agent's configuration. */
export function buildMcpProgram(): Command {
  return new Command('mcp-rewind mcp')
    .description(
      'serve the running mcp-rewind UI to an agent as an MCP server on stdio (list_exchanges, get_exchange, list_problems…)',
    )
    .helpOption('-h, --help', 'show this help')
    .option('--data-dir <dir>', 'user data folder of the running `mcp-rewind ui` [MCP_REWIND_DATA_DIR]');
}

/**
 * Connects to the UI that runs on the data folder (its owner.json and owner-only token: never argv, never a URL) and
 * serves MCP on stdin/stdout until stdin ends. stdout carries MCP only: everything else goes to stderr.
 */
export async function mcpCommand(argv: string[], version: string): Promise<void> {
  const program = buildMcpProgram()
    .exitOverride()
    .configureOutput({ writeErr: () => {}, writeOut: (text) => writeStderr(text.trimEnd()) });
  let dataDir: string;
  try {
    program.parse([argv[0], argv[1], ...argv.slice(3)]);
    dataDir = (program.opts().dataDir as string | undefined) || userDataDir();
  } catch (error) {
    if (
      error instanceof CommanderError &&
      (error.code === 'commander.helpDisplayed' || error.code === 'commander.version')
    )
      process.exit(0);
    writeStderr(`mcp-rewind: ${(error as Error).message.replace(/^error: /, '')} (see --help)`);
    process.exit(2);
  }
  const api = await connectRunningUi(dataDir).catch((error: Error) => {
    writeStderr(
      `mcp-rewind mcp: ${error instanceof NoRunningUi ? `${error.message}: start it with \`mcp-rewind ui\` first` : error.message}`,
    );
    process.exit(1);
  });
  const agent = await createAgentServer(api, version);
  const transport = new StdioServerTransport();
  const close = async (): Promise<void> => {
    await agent.close();
    api.close();
  };
  const end = (): void => void close().finally(() => process.exit(0));
  transport.onclose = end;
  process.stdin.once('end', end); // the agent closed our stdin: its session is over
  stayUp(close);
  await agent.server.connect(transport);
  writeStderr(`mcp-rewind mcp: serving ${dataDir}'s UI on stdio`);
}
