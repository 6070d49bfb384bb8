import { splitShellWords } from '../transports/shell-words.js';
import type { UpstreamSpec } from './open.js';

/** An upstream command line (`--upstream-command`, the app's upstreamCommand) as a spec: words split like sh, no shell. */
export function commandSpec(line: string): Extract<UpstreamSpec, { command: string }> {
  const [command, ...args] = splitShellWords(line);
  return { command, args };
}
