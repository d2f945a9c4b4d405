/**
 * A point's `subject` function that throws on an input (a malformed tool call, a hostile getter)
 * leaves the subject unknown. Leaving it `undefined` would quietly skip every hook that matches by
 * name, so a `Bash` deny rule would not see a call whose name could not be read. Instead each hook
 * whose matcher decides by the subject's name fails its match (R6), as a throwing matcher function
 * does: reported on every run, and a hook that fails closed applies (its condition unchecked)
 * while one that fails open is left out. Match-all and function matchers are not affected (a
 * function gets an `undefined` subject, as on a point without one). A hook that only observes is
 * left out, and its failure counted as an observer's (R10), as when its matcher throws.
 */
import { failedMatch } from "./decide.ts";
import { describe } from "./errors.ts";
import { compileChain, type Chain } from "./frame.ts";
import { wraps, type CompiledHook } from "./hook.ts";
import { compileMatcher } from "./match/matcher.ts";
import type { Point } from "./point.ts";
import type { RunContext } from "./run-context.ts";

/** Whether `h` applies to an input whose subject could not be computed (what `explain` says too). */
export const appliesWithoutSubject = (h: CompiledHook): boolean => !h.matcher.needsSubject || (h.failMode === "closed" && wraps(h));

/** The chain for inputs whose subject could not be computed, from the point's enabled hooks in R1 order. */
export const compileUnknownSubject = (point: Point, live: readonly CompiledHook[]): Chain => {
  const applied = live
    .filter(appliesWithoutSubject)
    // A copy that matches everything: the hook applies without its condition being checked.
    .map((h) => (h.matcher.needsSubject ? { ...h, matcher: compileMatcher(undefined, h.name) } : h));
  return compileChain(
    point,
    applied.filter(wraps),
    applied.filter((h) => h.observe !== undefined),
    undefined,
    live.filter((h) => h.matcher.needsSubject),
  );
};

/**
 * Report the failed match of each hook that needed the subject (`chain.unknownSubject`), with what
 * the subject function threw; hooks that only observe go to `observerFailed`. All are reported
 * when the run starts, before any hook runs.
 */
export const reportUnknownSubject = (
  run: RunContext,
  hooks: readonly CompiledHook[],
  thrown: unknown,
  observerFailed: (hook: CompiledHook, cause: unknown) => void,
): void => {
  const cause = new TypeError(`the subject of point "${run.point}" could not be computed: ${describe(thrown)}`, { cause: thrown });
  for (const hook of hooks) {
    if (wraps(hook)) failedMatch(run, hook, cause);
    else observerFailed(hook, cause);
  }
};
