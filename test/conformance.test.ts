/**
 * The official MCP conformance suite (0.2.0-alpha.12, a real client nobody here wrote) run three ways — straight at
 * a real server, through a recording proxy, through a replaying proxy with the server stopped — for the revisions it
 * scores (issue 21: "passes as many checks through record and through replay (server stopped) as direct"). Servers:
 * server-everything (npm, the 2025 revisions) and our v2 SDK fixture (2026-07-28, and 2025-11-25 on its stateful
 * legacy endpoint; the suite's own reference server is not ours to copy). Prints the passed-check counts it measured.
 *
 * Two kinds of per-check difference are expected and named here, never hidden:
 * - `dns-rebinding-protection`: a proxy answers with its own Host/Origin guard (docs/security.md), not the server's:
 *   it refuses the foreign Host the fixtures accept, and refuses a browser Origin it was not given leave for;
 * - KNOWN_REPLAY_GAPS: replay-side items of issue 21 still open; each is asserted to be there, so the test fails
 *   (and says which entry to remove) once the item is fixed.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startEverything } from './fixtures/everything.js';
import { startV2Server } from './fixtures/v2-server.js';
import { checkDifferences, conformanceMissing, runConformance, type ConformanceRun } from './helpers/conformance.js';
import { removeTempDirs } from './helpers/temp.js';
import { threeWays, type Upstream } from './helpers/three-ways.js';

const missing = conformanceMissing();
if (missing) console.warn(`skipping the conformance suite: ${missing}`);

afterAll(removeTempDirs);

const GUARDED = 'dns-rebinding-protection ';

/** Replay-side items of issue 21 not fixed yet: `<scenario> <check>: <direct> → <replay>`. */
const KNOWN_REPLAY_GAPS: Record<string, string[]> = {
  // item 9: server-everything answers a request on a DELETEd session 400, replay 404 (the suite wants 404)
  'server-everything 2025-11-25': ['server-session-lifecycle server-session-terminated-returns-404: FAILURE → SUCCESS'],
};

const CASES: { name: string; requirements: string; start: () => Promise<Upstream> }[] = [
  { name: 'server-everything 2025-11-25', requirements: '2025-11-25', start: () => startEverything('streamableHttp') },
  { name: 'v2 fixture 2026-07-28', requirements: '2026-07-28', start: () => startV2Server({ legacy: 'stateful' }) },
  { name: 'v2 fixture 2025-11-25', requirements: '2025-11-25', start: () => startV2Server({ legacy: 'stateful' }) },
];

const unguarded = (differences: string[]) => differences.filter((d) => !d.startsWith(GUARDED));
const passedIn = (run: ConformanceRun, scenario: string) =>
  [...run.checks].filter(([name, status]) => name.startsWith(scenario) && status === 'SUCCESS').length;

describe.skipIf(missing !== undefined)('the MCP conformance suite, direct / through record / through replay', () => {
  for (const c of CASES) {
    it(`${c.name}: as many checks pass through record and through replay (server stopped) as direct`, async () => {
      const { direct, recorded, replayed } = await threeWays(c.start, (url) => runConformance(url, c.requirements));
      console.log(`conformance ${c.name}: passed direct ${direct.passed}, record ${recorded.passed}, replay ${replayed.passed}`);

      expect(unguarded(checkDifferences(direct, recorded)), recorded.output).toEqual([]);
      expect(recorded.passed).toBe(direct.passed);
      // the guard trades one Host/Origin check for the other: as many pass through the proxy as direct
      expect(passedIn(recorded, GUARDED)).toBe(passedIn(direct, GUARDED));

      const gaps = KNOWN_REPLAY_GAPS[c.name] ?? [];
      expect(unguarded(checkDifferences(direct, replayed)), `replay differs from direct (a fixed gap? remove it from KNOWN_REPLAY_GAPS)`).toEqual(gaps);
      const gained = gaps.filter((g) => g.endsWith('FAILURE → SUCCESS')).length - gaps.filter((g) => g.endsWith('SUCCESS → FAILURE')).length;
      expect(replayed.passed - gained).toBe(direct.passed);
      expect(passedIn(replayed, GUARDED)).toBe(passedIn(direct, GUARDED));
    }, 180_000);
  }
});
