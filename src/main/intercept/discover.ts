import { existsSync } from 'node:fs';
import { readFile, realpath } from 'node:fs/promises';
import { CLIENT_IDS, type InterceptClient, type InterceptFile, type InterceptServer } from '../../shared/intercept.js';
import { getOwn } from '../../shared/own.js';
import {
  CLIENTS,
  claudeCodeContainers,
  configLocations,
  homeOf,
  type ConfigLocation,
  type LocateContext,
} from './clients.js';
import { MalformedConfig, openConfigDoc, type ConfigDoc } from './config-doc.js';
import { localProxyPort, redactedTransport, transportOf, unwrapStdio } from './entry.js';
import type { LedgerRecord } from './ledger.js';
import { join } from 'node:path';

/** A config file as read: its text and document, or why it cannot be used. */
export interface ReadConfig {
  location: ConfigLocation;
  /** the file itself when the path is a symbolic link (what is written) */
  realPath: string;
  doc?: ConfigDoc;
  error?: string;
  servers: Array<InterceptServer & { path: string[] }>;
  problems: string[];
}

export interface DiscoverOptions extends Partial<LocateContext> {
  /** what mcp-rewind changed (the data folder's intercept.json): tells an HTTP entry pointed at the app from one that was always local */
  ledger?: LedgerRecord[];
}

export function valueAt(root: unknown, path: string[]): unknown {
  let at = root;
  for (const key of path)
    at = at && typeof at === 'object' && !Array.isArray(at) ? getOwn(at as Record<string, unknown>, key) : undefined;
  return at;
}

function readServers(read: ReadConfig, ledger: LedgerRecord[]): void {
  const { location, doc } = read;
  const containers = typeof location.containers === 'function' ? location.containers(doc!.value) : location.containers;
  for (const container of containers) {
    const servers = valueAt(doc!.value, container.path);
    if (servers === undefined) continue;
    if (!servers || typeof servers !== 'object' || Array.isArray(servers)) {
      read.problems.push(`${container.path.join('.')} is not an object of servers`);
      continue;
    }
    for (const [name, entry] of Object.entries(servers)) {
      const transport = transportOf(entry, location.client);
      if (typeof transport === 'string') {
        read.problems.push(`${name}: ${transport}`);
        continue;
      }
      const path = [...container.path, name];
      const stdio = unwrapStdio(transport);
      const record = ledger.find((r) => r.file === read.realPath && r.path.join('\0') === path.join('\0'));
      const http = transport.kind === 'http' && localProxyPort(transport.url) !== undefined ? record : undefined;
      read.servers.push({
        target: `${location.client}:${name}`,
        name,
        scope: container.scope,
        ...(container.project ? { project: container.project } : {}),
        transport,
        state: stdio || http ? 'intercepted' : 'direct',
        ...(stdio ? { original: { ...transport, ...stdio.original } } : http ? { original: http.original } : {}),
        path,
      });
    }
  }
}

/** Reads one config file (never writes it). */
export async function readConfig(location: ConfigLocation, ledger: LedgerRecord[] = []): Promise<ReadConfig> {
  const read: ReadConfig = { location, realPath: location.path, servers: [], problems: [] };
  let text: string;
  try {
    read.realPath = await realpath(location.path);
    text = await readFile(read.realPath, 'utf8');
  } catch (error) {
    read.error = `cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
    return read;
  }
  try {
    read.doc = openConfigDoc(text, location.format);
  } catch (error) {
    if (!(error instanceof MalformedConfig)) throw error;
    read.error = error.message;
    return read;
  }
  readServers(read, ledger);
  return read;
}

/** Project folders to look into: those given, and those each home's ~/.claude.json knows that exist. */
async function projectsOf(context: LocateContext): Promise<string[]> {
  const projects = [...context.projects];
  for (const home of [homeOf(context.env, context.platform), ...(context.homes ?? [])]) {
    try {
      const doc = openConfigDoc(await readFile(join(home, '.claude.json'), 'utf8'), 'json');
      for (const c of claudeCodeContainers(doc.value)) if (c.project && existsSync(c.project)) projects.push(c.project);
    } catch {
      /* no file, or malformed: listed as such below */
    }
  }
  return projects;
}

/** Every client, its config files that exist (read, never written) and their servers. */
export async function discover(
  options: DiscoverOptions = {},
): Promise<{ clients: InterceptClient[]; reads: ReadConfig[] }> {
  const base: LocateContext = {
    env: options.env ?? process.env,
    platform: options.platform ?? process.platform,
    projects: options.projects ?? [],
    homes: options.homes ?? [],
  };
  const locations = configLocations({ ...base, projects: await projectsOf(base) });
  const reads = await Promise.all(
    locations.filter((l) => existsSync(l.path)).map((l) => readConfig(l, options.ledger)),
  );
  const clients = CLIENT_IDS.map((id): InterceptClient => {
    const files: InterceptFile[] = reads
      .filter((r) => r.location.client === id)
      .map((r) => ({
        path: r.location.path,
        format: r.location.format,
        ...(r.error ? { error: r.error } : {}),
        ...(r.problems.length ? { problems: r.problems } : {}),
        servers: r.servers.map(({ path: _path, ...server }) => ({
          ...server,
          transport: redactedTransport(server.transport),
          ...(server.original ? { original: redactedTransport(server.original) } : {}),
        })),
      }));
    const info = CLIENTS[id];
    return {
      id,
      label: info.label,
      found: files.length > 0,
      files,
      searched: locations.filter((l) => l.client === id).map((l) => l.path),
      applyHint: info.applyHint,
    };
  });
  return { clients, reads };
}
