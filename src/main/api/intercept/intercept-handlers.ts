import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { CommandName, CommandOutputs, commands } from '../../../shared/api.js';
import type { InterceptList } from '../../../shared/intercept.js';
import { localProxyPort } from '../../intercept/entry.js';
import { apiProxyHost } from '../../intercept/proxy-host.js';
import { describePlan, InterceptService, type PreparedPlan } from '../../intercept/service.js';
import type { AppController } from '../app-controller.js';
import { InterceptFolders } from './intercept-folders.js';

type Input<C extends CommandName> = z.output<(typeof commands)[C]>;
type Names = `intercept.${string}` | `attach.${string}`;
type Table = {
  [C in Extract<CommandName, Names>]: (input: Input<C>) => Promise<CommandOutputs[C]> | CommandOutputs[C];
};

/** how long a plan shown in the Intercept view can be applied */
const PLAN_TTL_MS = 10 * 60_000;

/** Which intercepted servers the app sees now, and through which of its proxies. */
function watched(list: InterceptList, controller: AppController): InterceptList {
  const proxies = controller.list();
  for (const client of list.clients)
    for (const file of client.files)
      for (const server of file.servers) {
        if (server.state !== 'intercepted') continue;
        const port = server.transport.kind === 'http' ? localProxyPort(server.transport.url) : undefined;
        const proxy =
          port !== undefined
            ? proxies.find((p) => !p.attached && p.config.port === port)
            : proxies.find((p) => p.attached && p.name === server.target);
        if (proxy) Object.assign(server, { proxyId: proxy.id, watching: proxy.state === 'running' });
        else server.watching = false;
      }
  return list;
}

/**
 * The API's Intercept and attach commands (src/shared/intercept.ts, src/shared/attach.ts): the client config files as
 * the CLI's `intercept` reads and changes them (a plan is kept a while so that what is written is what was shown),
 * and the attached processes of wrapped servers (AttachHub).
 */
export function interceptHandlers(controller: AppController, version: string): Table {
  const folders = new InterceptFolders(controller.dataDir, (line) => controller.log(line, 'warn'));
  const proxies = apiProxyHost({
    create: (config) => controller.createProxy(config),
    remove: (id) => controller.removeProxy(id),
  });
  // the folders looked in are read at each use: one the user just added is in the next list and plan
  const service = (): InterceptService =>
    new InterceptService({
      dataDir: controller.dataDir,
      version,
      projects: [process.cwd(), ...folders.usable('project')],
      homes: folders.usable('home'),
      proxies,
    });
  const list = async (): Promise<InterceptList> => ({
    ...watched(await service().list(), controller),
    folders: folders.list(),
  });
  const plans = new Map<string, { plan: PreparedPlan; timer: NodeJS.Timeout }>();
  const hub = controller.attached;
  return {
    'intercept.list': list,
    'intercept.addFolder': async (folder) => (await folders.add(folder), list()),
    'intercept.removeFolder': async ({ path }) => (await folders.remove(path), list()),
    'intercept.plan': async (input) => {
      const plan = await service().plan('all' in input ? 'all' : input);
      const planId = randomUUID();
      plans.set(planId, { plan, timer: setTimeout(() => plans.delete(planId), PLAN_TTL_MS).unref() });
      return { ...describePlan(plan), planId };
    },
    'intercept.apply': async ({ planId }) => {
      const kept = plans.get(planId);
      if (!kept)
        throw new Error(
          'planId: this plan is no longer known (shown more than 10 minutes ago, or applied): look again',
        );
      plans.delete(planId);
      clearTimeout(kept.timer);
      return service().apply(kept.plan);
    },
    'attach.open': (input) => hub.open(input),
    'attach.exchanges': ({ attachId, events }) => hub.exchanges(attachId, events),
    'attach.update': (input) => hub.update(input),
    'attach.poll': ({ attachId }) => hub.poll(attachId),
    'attach.close': ({ attachId }) => hub.close(attachId),
    'attach.record': ({ proxyId, dir }) => hub.setRecord(proxyId, dir),
  };
}
