import type { z } from 'zod';
import { commands, type ApiError, type CommandName, type CommandOutputs, type EventName, type EventPayloads } from '../../shared/api.js';
import { describeProxyIssues, proxyConfigIssues } from '../../shared/proxy-fields.js';
import { describeZodError } from '../../shared/rules/schema.js';
import { renderTemplate } from '../engine/rules/template.js';
import type { AppController } from './app-controller.js';
import { deleteEntry, duplicateEntry, listEntries, readEntry, writeEntry } from './cassette-files.js';
import { renameEntry } from './cassette-rename.js';
import { settingsFile, type SettingsFile } from './settings-file.js';
import { previewExport, runExport } from './export-files.js';
import { checkAgainstSchema } from './schema-check.js';

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

/** An ApiError from anything thrown: its message only. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof Error) return { message: error.message || error.name };
  if (typeof error === 'object' && error !== null && typeof (error as ApiError).message === 'string') return { message: (error as ApiError).message };
  return { message: String(error) };
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
  const table: HandlerTable = {
    'app.info': () => ({
      version: shellInfo.version,
      shell: shellInfo.shell,
      platform: process.platform,
      trafficCapacity: controller.traffic.capacity,
      trafficBytes: controller.traffic.maxBytes,
    }),
    'proxies.list': () => controller.list(),
    'proxies.create': (config) => controller.createProxy(config),
    'proxies.start': ({ id }) => controller.startProxy(id),
    'proxies.stop': ({ id }) => controller.stopProxy(id),
    'proxies.remove': ({ id }) => controller.removeProxy(id),
    'traffic.snapshot': ({ limit, proxyId }) => controller.traffic.snapshot(limit, proxyId),
    'traffic.body': ({ proxyId, seq }) => controller.traffic.full(proxyId, seq),
    'traffic.clear': (scope) => controller.traffic.clear(scope),
    'traffic.undoClear': ({ undo }) => controller.traffic.undoClear(undo),
    'rules.get': ({ id }) => controller.getRules(id),
    'rules.set': ({ id, rules }) => controller.setRules(id, rules),
    'rules.preview': ({ template, result, args }) => ({ text: renderTemplate(template, result, args) }),
    'cassettes.list': async ({ dir, remember }) => {
      const listed = await listEntries(dir, controller.cassetteHits(dir));
      if (remember) await rememberFolder(settings, listed.dir);
      return listed;
    },
    'cassettes.read': ({ dir, file }) => readEntry(dir, file),
    // through the folder's persister: the running proxies on the folder serve the change from the next call on
    'cassettes.write': async ({ dir, file, text }) => ({ entry: (await writeEntry(dir, file, text, controller.cassetteHits(dir))).entry }),
    'cassettes.delete': ({ dir, file }) => deleteEntry(dir, file),
    'cassettes.duplicate': async ({ dir, file }) => ({ entry: (await duplicateEntry(dir, file, controller.cassetteHits(dir))).entry }),
    'cassettes.rename': async ({ dir, file, key }) => ({ entry: (await renameEntry(dir, file, key, controller.cassetteHits(dir))).entry, renamed: file }),
    'export.preview': (input) => previewExport({ ...input, version: shellInfo.version }),
    'export.run': (input) => runExport({ ...input, version: shellInfo.version }),
    'demo.start': () => controller.startDemo(),
    'breakpoints.list': () => controller.breakpoints.state(),
    'breakpoints.set': ({ proxyId, rules }) => controller.breakpoints.set(proxyId, rules),
    'breakpoints.resume': ({ id, arguments: args, result }) => controller.breakpoints.resume(id, { arguments: args, result }),
    'breakpoints.fail': ({ id, message }) => controller.breakpoints.fail(id, message),
    'settings.get': () => settings.get(),
    'settings.set': (patch) => settings.set(patch),
    'exchange.send': (input) => controller.verbs.send(input),
    'exchange.catalog': ({ proxyId }) =>
      controller.find(proxyId) ? controller.verbs.sessions.catalog(proxyId) : Promise.reject(new Error(`proxyId: no proxy "${proxyId}"`)),
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
  };

  return {
    async call(command, input) {
      if (typeof command !== 'string' || !Object.prototype.hasOwnProperty.call(commands, command)) {
        throw { message: `unknown command ${String(command)}` } satisfies ApiError;
      }
      const name = command as CommandName;
      // a new proxy's problems are named after the form's fields ("Upstream URL: not a URL"), not the API's
      if (name === 'proxies.create' && typeof input === 'object' && input !== null) {
        const issues = proxyConfigIssues(input ?? {});
        if (Object.keys(issues).length > 0) throw { message: describeProxyIssues(issues) } satisfies ApiError;
      }
      const parsed = commands[name].safeParse(input ?? {});
      if (!parsed.success) throw { message: `${name}: invalid input: ${describeZodError(parsed.error)}` } satisfies ApiError;
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
