/**
 * The options of one `stack.run`, checked where they are given: a misspelt option (`sesionId`,
 * `timeout`) would otherwise be dropped in silence and the run go on without it, and a wrong-typed
 * one (`metadata: "prod"`, `path: "agent"`) would fail later, far from the mistake, or not at all.
 * A run without options pays nothing; one with options pays a look at each key it holds.
 */
import { isDurableApprover } from "./approval-types.ts";
import type { RunOptions } from "./context.ts";
import { describeGiven } from "./errors.ts";
import { nearestName } from "./nearest-name.ts";

/** Every field of `RunOptions`: the compiler says when one is added to the type and not here. */
const runOptionNames: { readonly [K in keyof Required<RunOptions>]: true } = {
  signal: true,
  sessionId: true,
  runId: true,
  metadata: true,
  path: true,
  timeoutMs: true,
  trace: true,
  onContext: true,
  store: true,
  approval: true,
};
const names = Object.keys(runOptionNames);

const isRecord = (value: unknown): boolean => typeof value === "object" && value !== null && !Array.isArray(value);
const isNames = (value: unknown): boolean => {
  if (!Array.isArray(value)) return false;
  for (const name of value) if (typeof name !== "string") return false;
  return true;
};
const hasMethods = (value: unknown, methods: readonly string[]): boolean =>
  typeof value === "object" && value !== null && methods.every((m) => typeof (value as Record<string, unknown>)[m] === "function");

/** What each option must be, when given (undefined is always allowed), and the words for it. */
const shapes: Readonly<Record<string, readonly [(value: unknown) => boolean, string]>> = {
  sessionId: [(v) => typeof v === "string", "a string"],
  runId: [(v) => typeof v === "string", "a string"],
  metadata: [isRecord, "an object"],
  path: [isNames, "a list of names (strings)"],
  trace: [(v) => hasMethods(v, ["record"]), "a Trace (new Trace())"],
  store: [(v) => hasMethods(v, ["get", "set", "incr", "scope"]), "a StateStore (get, set, incr, scope...)"],
  approval: [(v) => typeof v === "function" || isDurableApprover(v), "a function or durableApprovals()"],
};

/**
 * The error for run options that are not an object, hold a field `stack.run` does not read (with
 * the name it was probably meant to be), or hold one of the wrong type; undefined when they fit.
 * `signal`, `timeoutMs` and `onContext` are checked where the run reads them. Adapters pass options
 * on every call, so the common fields are decided inline and the message is built only on a refusal.
 *
 * @example
 * runOptionsError("toolCall", { sesionId: "s1" })?.message
 * // 'stack.run("toolCall"): unknown option "sesionId" (did you mean "sessionId"?); its options are signal, sessionId, ...'
 */
export const runOptionsError = (point: string, options: unknown): TypeError | undefined => {
  if (!isRecord(options)) return new TypeError(`stack.run("${point}"): options must be an object, got ${describeGiven(options)}`);
  const given = options as Record<string, unknown>;
  // for-in, not Object.keys: no array per call (an inherited enumerable field is checked too).
  for (const key in given) {
    const value = given[key];
    switch (key) {
      case "signal":
      case "timeoutMs":
      case "onContext":
        continue;
      case "sessionId":
      case "runId":
        if (value === undefined || typeof value === "string") continue;
        break;
      case "metadata":
        if (value === undefined || isRecord(value)) continue;
        break;
      case "approval":
        if (value === undefined || typeof value === "function") continue;
        break;
      default:
        if (!Object.hasOwn(runOptionNames, key)) {
          const near = nearestName(key, names);
          return new TypeError(
            `stack.run("${point}"): unknown option ${JSON.stringify(key)}${near === undefined ? "" : ` (did you mean ${JSON.stringify(near)}?)`}; its options are ${names.join(", ")}`,
          );
        }
    }
    const shape = shapes[key]!;
    if (value !== undefined && !shape[0](value))
      return new TypeError(`stack.run("${point}"): ${key} must be ${shape[1]}, got ${describeGiven(value)}`);
  }
  return undefined;
};
