/** Things a test opens, closed in reverse order after each test: `const { keep, closeAll } = keeper(); afterEach(closeAll)`. */
export function keeper(): {
  keep: <T extends { close(): Promise<void> }>(thing: T) => T;
  closeAll: () => Promise<void>;
} {
  const open: Array<{ close(): Promise<void> }> = [];
  return {
    keep: (thing) => {
      open.push(thing);
      return thing;
    },
    closeAll: async () => {
      for (const thing of open.splice(0).reverse()) await thing.close().catch(() => {});
    },
  };
}
