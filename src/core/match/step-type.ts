/**
 * `{ stepType: "tool" }`: a matcher on the kind of step a run was. A run's step type is what its point's
 * `stepType` reads from the run's outcome (the agent's `step` point: `"tool"` when the model asked
 * for tools, `"final"` when it answered without, `"error"` when the step failed), so it is known
 * only once the run has ended: such a matcher is tested on the way out, before `after` and
 * `recover`, and before observers.
 */

/** Step types are short names: letters, digits, `_`, `-`, `.` and `:`. */
const typeName = /^[A-Za-z0-9_.:-]+$/;

/**
 * Check a `{ stepType: … }` spec (one type or a list) and return the set of types it accepts;
 * `fail(path, problem)` throws the registration error for the sub-path given.
 *
 * @example
 * compileStepTypes(["tool", "error"], (p, m) => { throw new Error(`${p} ${m}`); }).has("tool") // true
 */
export const compileStepTypes = (spec: unknown, fail: (path: string, problem: string) => never): ReadonlySet<string> => {
  const list = Array.isArray(spec) ? (spec as unknown[]) : [spec];
  if (list.length === 0) return fail("stepType", "is an empty list, which no step is of; list the step types");
  list.forEach((t, i) => {
    const at = Array.isArray(spec) ? `stepType[${i}]` : "stepType";
    if (typeof t !== "string")
      fail(at, `must be a step type name (a string such as "tool" or "final"), got ${t === null ? "null" : typeof t}`);
    else if (!typeName.test(t)) fail(at, `"${t}" is not a step type name (letters, digits, _ - . : only); step types are compared exactly`);
  });
  return new Set(list as string[]);
};
