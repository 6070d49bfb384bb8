import type {
  CommandInput,
  CommandOutputs,
  CostScopeInput,
  InsightPatch,
  ProblemEntry,
  TrafficEvent,
} from '../../../shared/api.js';
import { costDiff, costOf, type CostReport } from '../../../shared/insight/cost.js';
import { countProblems, type ProblemCounts } from '../../../shared/insight/findings.js';
import { queryMatcher, summaryOf } from '../../../shared/insight/query.js';
import type { ExchangeEvent } from '../../../shared/traffic.js';
import { InsightObserver, type Observed } from '../../engine/insight/observer.js';
import { loadTokenCounter, TOKENIZER_LABEL } from '../../engine/insight/tokens.js';
import type { Log } from '../../engine/log.js';
import type { AppTraffic } from '../traffic/app-traffic.js';
import { checkAgainstSchema } from '../verbs/schema-check.js';
import { importTraffic } from '../traffic/traffic-import.js';

/** the copies of an exchange the checks' findings go on: the timeline's (maybe truncated) one, and the full one */
type Copies = { kept: TrafficEvent; full: TrafficEvent };

/**
 * The timeline's insight (issue 26): every exchange that reaches the timeline goes through the observer (protocol
 * checks, security warnings, tokens) a moment later; the findings are set on the timeline's copies and announced as
 * the `insight` event. Also answers the commands that read them: traffic.query, traffic.exchange, insight.*.
 */
export class AppInsight {
  private readonly observer: InsightObserver<Copies>;
  private counts?: { version: number; byProxy: Map<string, ProblemCounts> };
  private version = 0;

  constructor(
    private readonly traffic: AppTraffic,
    private readonly host: {
      emit(batch: InsightPatch[]): void;
      changed(): void;
      nameOf(proxyId: string): string | undefined;
      log: Log;
    },
  ) {
    this.observer = new InsightObserver<Copies>(checkAgainstSchema, (batch) => this.deliver(batch), host.log);
  }

  /** `full`: the exchange as it happened; `kept`: the timeline's copy (the same object unless a body was truncated). */
  observe(full: TrafficEvent, kept: TrafficEvent): void {
    // nothing cut: the timeline's copy is the whole exchange, and the other copy can go at once (the token counts,
    // paced while traffic flows, would keep it for as long)
    if (!kept.truncated) full = kept;
    this.observer.observe(full, full.proxyId, { kept, full });
  }

  close(): void {
    this.observer.close();
  }

  private deliver(batch: Array<Observed<Copies>>): void {
    const patches: InsightPatch[] = [];
    for (const { tag, insight } of batch) {
      tag.kept.insight = insight; // the ring's copy: a view gets it serialised, so no view sees it change
      tag.full.insight = insight;
      patches.push({ proxyId: tag.kept.proxyId, seq: tag.kept.seq, insight });
    }
    this.version++;
    this.host.emit(patches);
    if (patches.some((p) => p.insight.problems.length > 0)) this.host.changed();
  }

  /** What the checks found per proxy (and opened file) among the exchanges the timeline holds now. */
  problemCounts(proxyId: string): ProblemCounts | undefined {
    const version = this.version + this.traffic.buffer.size;
    if (this.counts?.version !== version) {
      const byProxy = new Map<string, ProblemCounts>();
      this.traffic.buffer.forEach((e) => {
        if (!e.insight?.problems.length) return;
        byProxy.set(e.proxyId, countProblems(e.insight.problems, byProxy.get(e.proxyId)));
      });
      this.counts = { version, byProxy };
    }
    return this.counts.byProxy.get(proxyId);
  }

  query(input: CommandInput<'traffic.query'>): CommandOutputs['traffic.query'] {
    const matches = queryMatcher(input);
    const limit = input.limit ?? 50;
    const items: CommandOutputs['traffic.query']['items'] = [];
    let total = 0;
    const all = this.traffic.snapshot();
    for (let i = all.length - 1; i >= 0; i--) {
      const e = all[i];
      if (!matches(e)) continue;
      total++;
      if ((input.before === undefined || e.seq < input.before) && items.length < limit) items.push(summaryOf(e));
    }
    const last = items.at(-1);
    const more = last !== undefined && all.some((e) => e.seq < last.seq && matches(e));
    return { items, total, ...(more ? { next: last.seq } : {}) };
  }

  exchange(seq: number): CommandOutputs['traffic.exchange'] {
    const found = this.traffic.buffer.find(seq);
    if (!found) throw new Error(`seq: no exchange #${seq} on the timeline`);
    return { event: found, full: !found.truncated };
  }

  problems(input: CommandInput<'insight.problems'>): ProblemEntry[] {
    const out: ProblemEntry[] = [];
    const all = this.traffic.snapshot();
    const limit = input.limit ?? 200;
    for (let i = all.length - 1; i >= 0 && out.length < limit; i--) {
      const e = all[i];
      if (input.proxyId && e.proxyId !== input.proxyId) continue;
      for (const finding of e.insight?.problems ?? []) {
        if (input.severity && finding.severity !== input.severity) continue;
        out.push({ seq: e.seq, proxyId: e.proxyId, method: e.method, ...(e.tool ? { tool: e.tool } : {}), finding });
        if (out.length >= limit) break;
      }
    }
    return out;
  }

  async cost(scope: CostScopeInput): Promise<CostReport> {
    const count = await loadTokenCounter();
    const { events, label } = await this.eventsOf(scope);
    return costOf(events, count, label, TOKENIZER_LABEL);
  }

  async costDiff(a: CostScopeInput, b: CostScopeInput): Promise<CommandOutputs['insight.costDiff']> {
    return costDiff(await this.cost(a), await this.cost(b));
  }

  private async eventsOf(scope: CostScopeInput): Promise<{ events: ExchangeEvent[]; label: string }> {
    if ('path' in scope) {
      const imported = await importTraffic(scope.path);
      return { events: imported.events, label: imported.name };
    }
    const name = this.host.nameOf(scope.proxyId);
    if (name === undefined) throw new Error(`proxyId: no proxy or opened file "${scope.proxyId}"`);
    const events = this.traffic
      .snapshot()
      .filter((e) => e.proxyId === scope.proxyId && (!scope.sessionId || e.sessionId === scope.sessionId))
      .map((e) => (e.truncated && this.traffic.buffer.fullOf(e.proxyId, e.seq)) || e);
    if (scope.sessionId && events.length === 0)
      throw new Error(`sessionId: no exchange of session ${scope.sessionId} on the timeline`);
    return { events, label: scope.sessionId ? `${name} · session ${scope.sessionId.slice(0, 8)}` : name };
  }
}
