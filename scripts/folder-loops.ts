/**
 * Lists the import loops between folders of src: the file graph collapsed to folders (src/main/<x>, one level deeper
 * under src/main/engine, the files at engine's root as one folder; src/<x> elsewhere). Each folder cycle is printed
 * with the file imports that make it; the exit code is 1 when there is one.
 *   node --import tsx scripts/folder-loops.ts [root]   (default: src)
 *
 * Built on the TypeScript compiler API rather than madge's: it is typed (madge ships no declarations), it resolves
 * specifiers exactly as `tsc` does, and it sees every form a dependency takes (type-only imports, `export … from`,
 * `import()` types), each with the line it is on.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

export interface FileEdge {
  from: string;
  to: string;
  line: number;
}

export interface FolderLoop {
  folders: string[];
  /** The file imports behind each step of the loop: `edges[i]` go from `folders[i]` to the next folder. */
  edges: FileEdge[][];
}

const options: ts.CompilerOptions = {
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  jsx: ts.JsxEmit.ReactJSX,
  resolveJsonModule: true,
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sourceFiles(join(dir, e.name))
      : /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')
        ? [join(dir, e.name)]
        : [],
  );
}

/** The folder a file of src counts in: `main/engine/<x>`, `main/engine` for engine's own files, `main/<x>`, `<x>`. */
export function folderOf(file: string): string {
  const parts = file.split('/');
  const depth = parts[0] === 'main' ? (parts[1] === 'engine' ? 3 : 2) : 1;
  return parts.slice(0, Math.min(depth, parts.length - 1)).join('/') || '.';
}

/** Every import between two files under root, with paths relative to root and the line of the import. */
export function fileEdges(root: string): FileEdge[] {
  const base = resolve(root);
  const rel = (p: string) => relative(base, p).split(sep).join('/');
  return sourceFiles(base).flatMap((file) => {
    const text = readFileSync(file, 'utf8');
    const { importedFiles } = ts.preProcessFile(text, true, true);
    return importedFiles.flatMap((ref) => {
      const hit = ts.resolveModuleName(ref.fileName, file, options, ts.sys).resolvedModule;
      const target = hit?.resolvedFileName;
      if (!target || hit.isExternalLibraryImport || !resolve(target).startsWith(base + sep)) return [];
      const line = text.slice(0, ref.pos).split('\n').length;
      return [{ from: rel(file), to: rel(target), line }];
    });
  });
}

type FolderGraph = Map<string, Map<string, FileEdge[]>>;

function folderGraph(edges: FileEdge[]): FolderGraph {
  const graph: FolderGraph = new Map();
  for (const edge of edges) {
    const [a, b] = [folderOf(edge.from), folderOf(edge.to)];
    if (a === b) continue;
    if (!graph.has(a)) graph.set(a, new Map());
    const out = graph.get(a)!;
    out.set(b, [...(out.get(b) ?? []), edge]);
  }
  return graph;
}

/** The elementary cycles, each found once from its smallest folder (Johnson's idea without the blocking lists). */
function cycles(graph: FolderGraph, limit: number): string[][] {
  const found: string[][] = [];
  const nodes = [...graph.keys()].sort();
  for (const start of nodes) {
    const walk = (node: string, path: string[]) => {
      for (const next of [...(graph.get(node)?.keys() ?? [])].sort()) {
        if (found.length >= limit) return;
        if (next === start) found.push([...path]);
        else if (next > start && !path.includes(next)) walk(next, [...path, next]);
      }
    };
    walk(start, [start]);
  }
  return found;
}

export function folderLoops(root: string, limit = 200): FolderLoop[] {
  const graph = folderGraph(fileEdges(root));
  return cycles(graph, limit).map((folders) => ({
    folders,
    edges: folders.map((f, i) => graph.get(f)!.get(folders[(i + 1) % folders.length])!),
  }));
}

function describe(loop: FolderLoop, root: string): string {
  const steps = loop.folders.map((folder, i) => {
    const next = loop.folders[(i + 1) % loop.folders.length];
    const lines = loop.edges[i].map((e) => `      ${join(root, e.from)}:${e.line} → ${join(root, e.to)}`);
    return [`    ${folder} → ${next}`, ...lines].join('\n');
  });
  return [`  ${[...loop.folders, loop.folders[0]].join(' → ')}`, ...steps].join('\n');
}

function main(): void {
  const root = process.argv[2] ?? 'src';
  const loops = folderLoops(root);
  if (loops.length === 0) {
    console.log(`No import loops between the folders of ${root}.`);
    return;
  }
  console.log(`${loops.length} import loop(s) between the folders of ${root}:`);
  for (const loop of loops) console.log(describe(loop, root));
  process.exitCode = 1;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() as string)) main();
