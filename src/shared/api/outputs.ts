import type { RulesFile } from '../rules/schema.js';
import type { JsonRpcResponse } from '../jsonrpc.js';
import type { BreakpointsState } from '../breakpoints.js';
import type { SettingsInfo } from '../settings.js';
import type { AppSessionConfig } from '../app-session.js';
import type { AttachOutputs, ToolView } from '../attach.js';
import type { InterceptList, InterceptPlan, InterceptResult } from '../intercept.js';
import type { CostDiff, CostReport } from '../insight/cost.js';
import type { CommandName } from './commands.js';
import type {
  Annotation,
  AppServerRequest,
  CassetteEntrySummary,
  ExchangeSummary,
  ExportPreview,
  ExportResult,
  ProblemEntry,
  ProxyCatalog,
  ProxyInfo,
  SaveResult,
  SourceInfo,
  TrafficEvent,
} from './records.js';

export type { ToolView };

/** A tool of a proxy's merged list (upstream + overlay), as the Rules view shows it. */

/** What each command answers with. */
export interface CommandOutputs extends AttachOutputs {
  /** trafficCapacity: the exchanges the timeline keeps in this run (the setting as it was at start) */
  'app.info': {
    version: string;
    shell: 'electron' | 'browser';
    platform: string;
    trafficCapacity: number;
    trafficBytes?: number;
  };
  'proxies.list': ProxyInfo[];
  'proxies.create': ProxyInfo;
  'proxies.start': ProxyInfo;
  'proxies.stop': ProxyInfo;
  'proxies.remove': { removed: true };
  /** `opened`: the engine opened the page itself (the desktop app); otherwise the UI opens `url` */
  'proxies.signIn': { url: string; opened: boolean };
  'proxies.signOut': ProxyInfo;
  'traffic.snapshot': TrafficEvent[];
  /** `total`: the exchanges (of that proxy) the timeline holds now, for progress; `next`: the next page's `after` */
  'traffic.page': { events: TrafficEvent[]; total: number; next?: number };
  /** `held: false`: the full bodies were let go (the engine keeps the newest few dozen MB of them) */
  'traffic.body': { held: true; event: TrafficEvent } | { held: false; reason: string };
  /** `undo`: a token for traffic.undoClear, valid for UNDO_CLEAR_MS */
  'traffic.clear': { cleared: number; undo?: string };
  'traffic.undoClear': { restored: number };
  'rules.get': {
    rules: RulesFile | null;
    tools: ToolView[];
  };
  'rules.set': {
    rules: RulesFile;
    tools: ToolView[];
    notified: number;
  };
  'rules.preview': { text: string };
  'cassettes.list': { dir: string; entries: CassetteEntrySummary[] };
  'cassettes.read': { text: string };
  'cassettes.write': { entry: CassetteEntrySummary };
  'cassettes.delete': { deleted: string };
  'cassettes.duplicate': { entry: CassetteEntrySummary };
  'cassettes.rename': { entry: CassetteEntrySummary; renamed: string };
  'export.preview': ExportPreview;
  'export.run': ExportResult;
  'demo.start': { proxy: ProxyInfo; upstreamUrl: string };
  'breakpoints.list': BreakpointsState;
  'breakpoints.set': BreakpointsState;
  'breakpoints.resume': BreakpointsState;
  'breakpoints.fail': BreakpointsState;
  'settings.get': SettingsInfo;
  'settings.set': SettingsInfo;
  /** `seq`: the new exchange's timeline number (absent if the exchange never reached the timeline) */
  'exchange.send': { seq?: number; response: JsonRpcResponse };
  'exchange.catalog': ProxyCatalog;
  'appSession.get': AppSessionConfig;
  'appSession.set': AppSessionConfig;
  'schema.check': { problems: Array<{ path: string; message: string }> };
  'appRequests.answer': AppServerRequest[];
  'appRequests.list': AppServerRequest[];
  'traffic.annotations': Record<number, Annotation>;
  'traffic.annotate': Record<number, Annotation>;
  'traffic.save': SaveResult;
  'sources.open': SourceInfo;
  'sources.close': { closed: true };
  'sources.list': SourceInfo[];
  'cassettes.lookup': {
    dir: string;
    entries: Array<{
      file: string;
      n: number;
      result: Record<string, unknown>;
      stream?: Array<Record<string, unknown>>;
      recordedAt?: string;
    }>;
  };
  'intercept.list': InterceptList;
  'intercept.plan': InterceptPlan & { planId: string };
  'intercept.apply': InterceptResult;
  'intercept.addFolder': InterceptList;
  'intercept.removeFolder': InterceptList;
  /** `next`: the `before` of the next page; `total`: the exchanges that match */
  'traffic.query': { items: ExchangeSummary[]; next?: number; total: number };
  /** `full: false`: its large bodies are truncated (the engine let the full version go) */
  'traffic.exchange': { event: TrafficEvent; full: boolean };
  'insight.problems': ProblemEntry[];
  'insight.cost': CostReport;
  'insight.costDiff': CostDiff;
}
export type CommandOutput<C extends CommandName> = CommandOutputs[C];
