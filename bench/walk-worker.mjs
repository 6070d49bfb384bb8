/**
 * The debugger side of bench/walk-trace.ts, in a worker thread: it connects to the main thread's inspector, sets a
 * breakpoint at the first statement of every function of the built engine (and src/shared), and while armed records
 * the engine frames of the stack at each function entry, resuming at once. The main thread runs the request.
 */
import { Session } from 'node:inspector/promises';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';
import ts from 'typescript';

/** @typedef {{ start: [number, number], end: [number, number] }} Range 0-based line and column of a function body's start and end */

const { dist } = workerData;
const base = `${pathToFileURL(dist).href}/`;
setInterval(() => {}, 1 << 30); // inspector replies keep no event loop alive: this does, until the main thread ends the worker
const session = new Session();
session.connectToMainThread();
/** call frames name their script by id only */
const urls = new Map();
session.on('Debugger.scriptParsed', ({ params }) => void urls.set(params.scriptId, params.url));
await session.post('Debugger.enable');
await session.post('Debugger.setBreakpointsActive', { active: false });

const ranges = new Map();
const setting = [];
for (const file of jsFiles(join(dist, 'main/engine')).concat(jsFiles(join(dist, 'shared')))) {
  const url = pathToFileURL(file).href;
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const at = (pos) => {
    const { line, character } = source.getLineAndCharacterOfPosition(pos);
    return [line, character];
  };
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const body = node.body;
      const first = ts.isBlock(body) ? (body.statements[0] ?? body) : body;
      const [lineNumber, columnNumber] = at(
        first === body && ts.isBlock(body) ? body.getEnd() - 1 : first.getStart(source),
      );
      /** @type {Range} */
      const range = { start: at(body.getStart(source)), end: at(body.getEnd()) };
      setting.push(
        session.post('Debugger.setBreakpointByUrl', { url, lineNumber, columnNumber }).then(
          ({ breakpointId }) => void ranges.set(breakpointId, range),
          () => {},
        ),
      );
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}
await Promise.all(setting);

let armed = false;
const events = [];
const within = (l, r) => {
  const c = l.columnNumber ?? 0;
  const after = l.lineNumber > r.start[0] || (l.lineNumber === r.start[0] && c >= r.start[1]);
  const before = l.lineNumber < r.end[0] || (l.lineNumber === r.end[0] && c <= r.end[1]);
  return after && before;
};
session.on('Debugger.paused', ({ params }) => {
  const top = params.callFrames[0];
  // a breakpoint V8 moved out of its function (an empty one) is not an entry
  const entry =
    armed && (params.hitBreakpoints ?? []).some((id) => ranges.has(id) && within(top.location, ranges.get(id)));
  if (entry) {
    const frames = params.callFrames
      .map((f) => ({ url: urls.get(f.location.scriptId) ?? '', f }))
      .filter(({ url }) => url.startsWith(base))
      .map(({ url, f }) => ({
        file: url.slice(base.length),
        fn: `${f.functionLocation?.lineNumber}:${f.functionLocation?.columnNumber}:${f.functionName}`,
      }))
      .reverse();
    events.push(frames);
  }
  void session.post('Debugger.resume');
});

parentPort.on('message', (message) => {
  void (async () => {
    armed = message === 'arm';
    await session.post('Debugger.setBreakpointsActive', { active: armed });
    parentPort.postMessage(armed ? 'armed' : events.splice(0));
  })();
});
parentPort.postMessage('ready');

function jsFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? jsFiles(join(dir, e.name)) : e.name.endsWith('.js') ? [join(dir, e.name)] : [],
  );
}
