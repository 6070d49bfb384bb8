/**
 * Text for a terminal. Names printed by the CLI — keys, tool names, methods, file names, a server's error messages
 * and stderr — come from files and the wire, and a terminal obeys the control characters in them: an escape
 * sequence can recolour, retitle or clear the screen, move the cursor over earlier lines, or (in some terminals) write
 * to the clipboard; a carriage return or a bidi override makes a line show something else than it says. Every line
 * the CLI prints goes through terminalSafe; a name put into a one-line message goes through oneLine.
 */

// C0 controls but tab and newline, DEL, C1 controls (U+0080–U+009F: CSI, OSC… in 8 bits), the line and paragraph
// separators, and the bidi embeddings, overrides and isolates
// eslint-disable-next-line no-control-regex -- control characters are what is matched
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex -- the same, tab and newline included
const UNSAFE_IN_A_NAME = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** `\x1b`, `\x9b`, `\u202e`: the character written out, as in a JavaScript string. */
const escapeChar = (c: string): string => {
  const code = c.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
};

/** Text with every control character escaped but tab and newline (lines stay lines). */
export const terminalSafe = (text: string): string => text.replace(UNSAFE, escapeChar);

/** A name for a one-line message: newline and tab escaped too, so a name can never start a line of its own. */
export const oneLine = (name: string): string => name.replace(UNSAFE_IN_A_NAME, escapeChar);
