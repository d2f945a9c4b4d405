/**
 * A point's `subject` function that throws on an input (a malformed tool call, a hostile getter)
 * leaves the subject unknown. Leaving it `undefined` would quietly skip every hook that matches by
 * name, so a `Bash` deny rule would not see a call whose name could not be read. Instead each hook
 * whose matcher needs the subject fails its match (R6), as a throwing matcher function does:
 * reported on every run, and a hook that fails closed applies (its condition unchecked) while one
 * that fails open is left out.
 */
import { describe } from "./errors.ts";
import { compileChain, type Chain } from "./frame.ts";
import type { CompiledHook } from "./hook.ts";
import { hookError } from "./invoke.ts";
import { compileMatcher } from "./match/matcher.ts";
import type { Point } from "./point.ts";
import type { RunContext } from "./run-context.ts";

/** The chain for inputs whose subject could not be computed, from the point's enabled hooks in R1 order. */
export const compileUnknownSubject = (point: Point, live: readonly CompiledHook[]): Chain => {
  const dependent = live.filter((h) => !h.matcher.all);
  // A copy that matches everything: the hook applies without its condition being checked.
  const applied = live
    .filter((h) => h.matcher.all || h.failMode === "closed")
    .map((h) => (h.matcher.all ? h : { ...h, matcher: compileMatcher(undefined, h.name) }));
  return compileChain(
    point,
    applied.filter((h) => h.before || h.after || h.around || h.recover),
    applied.filter((h) => h.observe !== undefined),
    undefined,
    dependent,
  );
};

/** Report the failed match of each hook that needed the subject (`chain.unknownSubject`). */
export const reportUnknownSubject = (run: RunContext, hooks: readonly CompiledHook[], input: unknown): void => {
  // The subject function is called again for its error: the chain is cached, the error is not.
  let cause: unknown;
  try {
    run.pointDef.subject?.(input);
    cause = new TypeError(`the subject of point "${run.point}" could not be computed`);
  } catch (error) {
    cause = new TypeError(`the subject of point "${run.point}" could not be computed: ${describe(error)}`, { cause: error });
  }
  for (const hook of hooks) {
    const open = hook.failMode === "open";
    const error = hookError(run, hook, "match", "threw", cause, 0);
    run.fail(error, open);
    if (run.recording) run.record(hook, "match", "Failed", performance.now(), error.message, open ? "open" : "closed");
  }
};
