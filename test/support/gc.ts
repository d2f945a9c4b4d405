/** Forcing a garbage collection from a test, whatever flags node was started with. */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * A full garbage collection: `global.gc` when node runs with `--expose-gc`, else the same
 * function obtained by turning the flag on at run time (V8 supports this for `gc`).
 *
 * @example
 * gc(); const heap = process.memoryUsage().heapUsed
 */
export const gc: () => void = (() => {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === "function") return exposed;
  try {
    setFlagsFromString("--expose-gc");
    return runInNewContext("gc") as () => void;
  } catch {
    return () => {};
  }
})();
