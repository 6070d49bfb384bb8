/**
 * For `skipIf`: whether to skip, and when it does, one printed line saying what and why (at collection time), so a
 * skipped test never looks like a pass.
 *
 *   describe.skipIf(skipping(!HAS_PROCFS && 'descriptors are counted in /proc (Linux)', 'the UI page server'))(…)
 */
export function skipping(reason: string | false | undefined, what: string): boolean {
  if (reason) console.log(`skipped: ${what}: ${reason}`);
  return Boolean(reason);
}
