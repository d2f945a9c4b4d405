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

/**
 * Whether `work` settles before a timer of `ms`, started now, fires. Timers due earlier fire
 * first however late the event loop runs them, so a deadline shorter than `ms` that the code sets
 * after this call beats it on a busy machine as on an idle one; only a deadline that is too long,
 * or missing, loses.
 *
 * @example
 * expect(await settlesWithin(1_000, stack.run("tool", call(), op, { timeoutMs: 30 }))).toBe(true)
 */
export const settlesWithin = (ms: number, work: Promise<unknown>): Promise<boolean> => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  return Promise.race([work.then(() => true as const), late]).finally(() => clearTimeout(timer));
};
