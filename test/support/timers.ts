/** Timers a piece of work leaves behind, counted so that other tests' timers cannot blur the count. */
import { createHook } from "node:async_hooks";

/**
 * How many of the timers started while `work` ran are still pending once it is done. Counted by
 * identity, so a timer of another test that fires meanwhile (late, on a loaded machine) changes nothing.
 *
 * @example
 * expect(await timersLeftBy(() => stack.run("tool", call(), op))).toBe(0)
 */
export const timersLeftBy = async (work: () => Promise<unknown>): Promise<number> => {
  const pending = new Set<number>();
  let watching = true;
  const hook = createHook({
    init: (id, type) => void (watching && type === "Timeout" && pending.add(id)),
    destroy: (id) => void pending.delete(id),
  }).enable();
  try {
    await work();
    watching = false;
    // A cleared or fired timer reports its end on a later turn of the event loop.
    for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
    return pending.size;
  } finally {
    hook.disable();
  }
};
