/**
 * Lists the functions longer than a limit (lines from the first to the last, comments inside included), longest
 * first: every function, method, arrow function and accessor of the .ts/.tsx files under the folders given. A
 * function inside a long one is listed on its own line as well.
 *   node --import tsx scripts/long-functions.ts [--max 60] [folder…]   (default: src/main/engine)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export interface LongFunction {
  file: string;
  name: string;
  line: number;
  lines: number;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sourceFiles(join(dir, e.name))
      : /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')
        ? [join(dir, e.name)]
        : [],
  );
}

/** A function's name as a reader would say it: `Class.method`, the variable or property it is assigned to, else `(anonymous)`. */
function nameOf(node: ts.SignatureDeclaration): string {
  const own =
    node.name && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name) || ts.isPrivateIdentifier(node.name))
      ? node.name.text
      : undefined;
  const parent = node.parent;
  const holder =
    ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)
      ? parent.name.getText()
      : ts.isCallExpression(parent)
        ? `${parent.expression.getText().slice(0, 40)}(…)`
        : undefined;
  const name = own ?? (ts.isConstructorDeclaration(node) ? 'constructor' : holder) ?? '(anonymous)';
  const owner = ts.isClassLike(node.parent)
    ? node.parent.name?.text
    : ts.isClassLike(parent?.parent)
      ? parent.parent.name?.text
      : undefined;
  return owner ? `${owner}.${name}` : name;
}

export function longFunctions(folders: string[], max: number): LongFunction[] {
  const found: LongFunction[] = [];
  for (const file of folders.flatMap(sourceFiles)) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        const lines = last - first + 1;
        if (lines > max)
          found.push({ file: relative(process.cwd(), file), name: nameOf(node), line: first + 1, lines });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found.sort((a, b) => b.lines - a.lines);
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() as string)) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--max');
  const max = at >= 0 ? Number(args[at + 1]) : 60;
  const folders = args.filter((a, i) => a !== '--max' && (at < 0 || i !== at + 1));
  const list = longFunctions(folders.length ? folders : ['src/main/engine'], max);
  for (const f of list) console.log(`${String(f.lines).padStart(4)}  ${f.file}:${f.line}  ${f.name}`);
  console.log(`${list.length} function(s) over ${max} lines`);
}
