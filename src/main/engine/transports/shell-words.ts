/**
 * Splits a command line into words the way a POSIX shell tokenizes it — whitespace, '…', "…" and backslashes —
 * without running a shell: no variables, globs, pipes or redirections (`$HOME` stays `$HOME`).
 *
 *   splitShellWords(`node "my server.js" --name 'a b' x\ y`) → ['node', 'my server.js', '--name', 'a b', 'x y']
 *
 * Outside quotes a backslash takes the next character literally (backslash-newline is removed); inside double
 * quotes it escapes only `"`, `\`, `$` and `` ` `` (as in sh); inside single quotes nothing is special. Windows
 * paths therefore need quotes: "C:\Program Files\x.exe". Throws on an unterminated quote or a trailing backslash.
 */
export function splitShellWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false; // distinguishes an empty quoted word ('') from no word
  let i = 0;
  while (i < line.length) {
    const c = line[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      i++;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated single quote at position ${i + 1}`);
      word += line.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (c === '"') {
      inWord = true;
      i++;
      for (;;) {
        if (i >= line.length) throw new Error('unterminated double quote');
        const d = line[i];
        if (d === '"') {
          i++;
          break;
        }
        if (d === '\\' && i + 1 < line.length && '"\\$`\n'.includes(line[i + 1])) {
          if (line[i + 1] !== '\n') word += line[i + 1];
          i += 2;
        } else {
          word += d;
          i++;
        }
      }
    } else if (c === '\\') {
      if (i + 1 >= line.length) throw new Error('trailing backslash');
      if (line[i + 1] !== '\n') {
        word += line[i + 1];
        inWord = true;
      }
      i += 2;
    } else {
      word += c;
      inWord = true;
      i++;
    }
  }
  if (inWord) words.push(word);
  return words;
}
