import type { z } from 'zod';
import {
  commands,
  type ApiError,
  type CommandName,
  type CommandOutputs,
  type EventName,
  type EventPayloads,
} from '../../shared/api.js';
import { describeProxyIssues, proxyIssuesOf } from '../../shared/proxy-config.js';
import { describeZodError } from '../../shared/rules/schema.js';
import { renderTemplate } from '../engine/rules/template.js';
import type { AppController } from './app-controller.js';
import { deleteEntry, duplicateEntry, listEntries, readEntry, writeEntry } from './cassettes/cassette-files.js';
import { renameEntry } from './cassettes/cassette-rename.js';
import { settingsFile, type SettingsFile } from './files/settings-file.js';
import { previewExport, runExport } from './cassettes/export-files.js';
import { checkAgainstSchema } from './verbs/schema-check.js';
import { interceptHandlers } from './intercept/intercept-handlers.js';

/** What the shell tells the API about itself (answered by `app.info`). */
export interface ShellInfo {
  shell: 'electron' | 'browser';
  /** the app's version (package.json) */
  version: string;
}

/**
 * The one handler table behind src/shared/api.ts. Electron IPC and the browser shell's WebSocket bridge both call
 * `call(command, input)`: the input is validated with the command's zod schema, the handler runs, and the output is
 * returned. Every failure rejects with an ApiError `{ message }` (never a stack, never an Error instance).
 */
export interface ApiHandlers {
  call(command: string, input: unknown): Promise<unknown>;
  on<E extends EventName>(event: E, listener: (payload: EventPayloads[E]) => void): () => void;
}

type Input<C extends CommandName> = z.output<(typeof commands)[C]>;
type HandlerTable = { [C in CommandName]: (input: Input<C>) => Promise<CommandOutputs[C]> | CommandOutputs[C] };

/** The one list of recent cassette folders (settings.json): a folder the user opened goes first. */
async function rememberFolder(settings: SettingsFile, dir: string): Promise<void> {
  const recent = settings.get().settings.recentFolders;
  if (recent[0] === dir) return;
  await settings.set({ recentFolders: [dir, ...recent.filter((d) => d !== dir)].slice(0, 10) });
}

const ATTACHED =
  'id: this server is started by its MCP client (wrapped by Intercept): start or stop it there; Unwrap in Intercept puts it back';

/** An ApiError from anything thrown: its message only. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof Error) return { message: error.message || error.name };
  if (typeof error === 'object' && error !== null && typeof (error as ApiError).message === 'string')
    return { message: (error as ApiError).message };
  return { message: String(error) };
}

/** What is wrong with a command's input: a new proxy's settings under the New proxy form's labels, others by path. */
function invalidInput(name: CommandName, input: unknown, error: z.ZodError): string {
  if (name === 'proxies.create' && typeof input === 'object' && input !== null)
    return describeProxyIssues(proxyIssuesOf(error));
  return `${name}: invalid input: ${describeZodError(error)}`;
}

/**
 * `settings` defaults to the one SettingsFile of the controller's data folder (shared with the Electron shell's window
 * state); tests pass their own to read a folder afresh.
 */
export function createApiHandlers(
  controller: AppController,
  shellInfo: ShellInfo,
  settings: SettingsFile = settingsFile(controller.dataDir, (line) => controller.log(line, 'warn')),
): ApiHandlers {
  // an attached server (a wrapped entry the agent starts) is a proxy of the app without a process of its own
  const attached = controller.attached;
  const table: HandlerTable = {
    ...interceptHandlers(controller, shellInfo.version),
    'app.info': () => ({
      version: shellInfo.version,
      shell: shellInfo.shell,
      platform: process.platform,
      trafficCapacity: controller.traffic.capacity,
      trafficBytes: controller.traffic.maxBytes,
    }),
    'proxies.list': () => controller.list(),
    'proxies.create': (config) => controller.createProxy(config),
    'proxies.start': ({ id }) => (attached.has(id) ? Promise.reject(new Error(ATTACHED)) : controller.startProxy(id)),
    'proxies.stop': ({ id }) => (attached.has(id) ? Promise.reject(new Error(ATTACHED)) : controller.stopProxy(id)),
    'proxies.remove': ({ id }) => (attached.has(id) ? attached.remove(id) : controller.removeProxy(id)),
    'proxies.signIn': ({ id }) => controller.signIn(id),
    'proxies.signOut': ({ id }) => controller.signOut(id),
    'traffic.snapshot': ({ limit, proxyId }) => controller.traffic.snapshotAnswer(limit, proxyId),
    'traffic.page': (input) => controller.traffic.page(input),
    'traffic.body': ({ proxyId, seq }) => controller.traffic.full(proxyId, seq),
    'traffic.clear': (scope) => controller.traffic.clear(scope),
    'traffic.undoClear': ({ undo }) => controller.traffic.undoClear(undo),
    'rules.get': ({ id }) => (attached.has(id) ? attached.getRules(id) : controller.getRules(id)),
    'rules.set': ({ id, rules }) => (attached.has(id) ? attached.setRules(id, rules) : controller.setRules(id, rules)),
    'rules.preview': ({ template, result, args }) => ({ text: renderTemplate(template, result, args) }),
    'cassettes.list': async ({ dir, remember }) => {
      const listed = await listEntries(dir, controller.cassetteHits(dir));
      if (remember) await rememberFolder(settings, listed.dir);
      return listed;
    },
    'cassettes.read': ({ dir, file }) => readEntry(dir, file),
    // through the folder's persister: the running proxies on the folder serve the change from the next call on
    'cassettes.write': async ({ dir, file, text }) => ({
      entry: (await writeEntry(dir, file, text, controller.cassetteHits(dir))).entry,
    }),
    'cassettes.delete': ({ dir, file }) => deleteEntry(dir, file),
    'cassettes.duplicate': async ({ dir, file }) => ({
      entry: (await duplicateEntry(dir, file, controller.cassetteHits(dir))).entry,
    }),
    'cassettes.rename': async ({ dir, file, key }) => ({
      entry: (await renameEntry(dir, file, key, controller.cassetteHits(dir))).entry,
      renamed: file,
    }),
    'export.preview': (input) => previewExport({ ...input, version: shellInfo.version }),
    'export.run': (input) => runExport({ ...input, version: shellInfo.version }),
    'demo.start': () => controller.startDemo(),
    'breakpoints.list': () => controller.breakpoints.state(),
    'breakpoints.set': ({ proxyId, rules }) => controller.breakpoints.set(proxyId, rules),
    'breakpoints.resume': ({ id, arguments: args, params, result }) =>
      controller.breakpoints.resume(id, { arguments: args, params, result }),
    'breakpoints.fail': ({ id, message }) => controller.breakpoints.fail(id, message),
    'settings.get': () => settings.get(),
    'settings.set': (patch) => settings.set(patch),
    'exchange.send': (input) => controller.verbs.send(input),
    'exchange.catalog': ({ proxyId }) =>
      controller.find(proxyId)
        ? controller.verbs.sessions.catalog(proxyId)
        : Promise.reject(new Error(`proxyId: no proxy "${proxyId}"`)),
    'appSession.get': () => controller.verbs.sessions.declared(),
    'appSession.set': (config) => controller.verbs.sessions.declare(config),
    'schema.check': ({ schema, value }) => ({ problems: checkAgainstSchema(schema, value) }),
    'appRequests.answer': ({ id, result, error }) => controller.verbs.desk.answer(id, { result, error }),
    'appRequests.list': () => controller.verbs.desk.list(),
    'traffic.annotations': () => controller.verbs.timeline.annotations(),
    'traffic.annotate': ({ seq, pinned, note }) => controller.verbs.timeline.annotate(seq, { pinned, note }),
    'traffic.save': (input) => controller.verbs.save(input),
    'sources.open': ({ path }) => controller.verbs.timeline.openSource(path),
    'sources.close': ({ id }) => (controller.verbs.timeline.closeSource(id), { closed: true as const }),
    'sources.list': () => controller.verbs.timeline.listSources(),
    'cassettes.lookup': ({ proxyId, key }) => controller.verbs.recorded(proxyId, key),
    'traffic.query': (input) => controller.insight.query(input),
    'traffic.exchange': ({ seq }) => controller.insight.exchange(seq),
    'insight.problems': (input) => controller.insight.problems(input),
    'insight.cost': (scope) => controller.insight.cost(scope),
    'insight.costDiff': ({ a, b }) => controller.insight.costDiff(a, b),
  };

  return {
    async call(command, input) {
      if (typeof command !== 'string' || !Object.prototype.hasOwnProperty.call(commands, command)) {
        throw { message: `unknown command ${String(command)}` } satisfies ApiError;
      }
      const name = command as CommandName;
      const parsed = commands[name].safeParse(input ?? {});
      if (!parsed.success) throw { message: invalidInput(name, input, parsed.error) } satisfies ApiError;
      try {
        const handler = table[name] as (input: unknown) => unknown;
        return await handler(parsed.data);
      } catch (error) {
        throw toApiError(error);
      }
    },
    on(event, listener) {
      if (event === 'settings') return settings.on(listener as (payload: EventPayloads['settings']) => void);
      return controller.on(event, listener);
    },
  };
}
