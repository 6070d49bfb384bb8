import { createServer } from 'node:net';
import type {
  InterceptChange,
  InterceptList,
  InterceptPlan,
  InterceptResult,
  InterceptSelection,
} from '../../shared/intercept.js';
import { applyPlan, type ProxyHost } from './apply.js';
import { CLIENTS } from './clients.js';
import { discover, type DiscoverOptions } from './discover.js';
import { launcherFor, type Launcher } from './entry.js';
import { Ledger, sha256 } from './ledger.js';
import { planUnwrap, planWrap, type FilePlan } from './plan.js';

/** A free port on 127.0.0.1 now, for an HTTP server's proxy (kept in its config from then on). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface InterceptOptions extends Omit<DiscoverOptions, 'ledger'> {
  /** the data folder: intercept.json (what was changed) lives there */
  dataDir: string;
  launcher?: Launcher;
  version: string;
  proxies?: ProxyHost;
}

export interface PreparedPlan {
  action: 'wrap' | 'unwrap';
  files: FilePlan[];
  skipped: string[];
  record?: string;
}

/** Intercept for a shell (the CLI, the app's API): list, plan (a diff, nothing written) and apply. */
export class InterceptService {
  readonly ledger: Ledger;

  constructor(private readonly options: InterceptOptions) {
    this.ledger = new Ledger(options.dataDir);
  }

  private async read(): Promise<Awaited<ReturnType<typeof discover>> & { ledger: ReturnType<Ledger['read']> }> {
    const ledger = this.ledger.read();
    return { ...(await discover({ ...this.options, ledger })), ledger };
  }

  async list(): Promise<InterceptList> {
    return { clients: (await this.read()).clients };
  }

  /** What a selection would write; `'all'` unwraps every recorded change. */
  async plan(selection: InterceptSelection | 'all'): Promise<PreparedPlan> {
    const { reads, ledger } = await this.read();
    if (selection === 'all') return { action: 'unwrap', ...planUnwrap('all', { reads, ledger }) };
    if (selection.action === 'unwrap') return { action: 'unwrap', ...planUnwrap(selection, { reads, ledger }) };
    const launcher = this.options.launcher ?? launcherFor('node', this.options.version);
    return {
      action: 'wrap',
      record: selection.record,
      ...(await planWrap(selection, { reads, ledger, launcher, dataDir: this.options.dataDir, freePort })),
    };
  }

  apply(plan: PreparedPlan): Promise<InterceptResult> {
    return applyPlan(plan.action, plan, { ledger: this.ledger, proxies: this.options.proxies, record: plan.record });
  }
}

/** A plan as the UI shows it: each file's text before and after. */
export function describePlan(plan: PreparedPlan): InterceptPlan {
  const changes: InterceptChange[] = plan.files.map((f) => ({
    path: f.read.location.path,
    target: f.targets.join(', '),
    before: f.before,
    after: f.after,
    baseHash: sha256(f.before),
  }));
  const hints = [
    ...new Set(
      plan.files.map((f) => `${CLIENTS[f.read.location.client].label}: ${CLIENTS[f.read.location.client].applyHint}`),
    ),
  ];
  return { action: plan.action, changes, skipped: plan.skipped, hints };
}
