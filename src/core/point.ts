/**
 * Points: the named lifecycle points hooks attach to. A point carries its input and output
 * types (phantom fields), its kind (`gate` may reject, `observe` may only change data), and
 * how to find the subject and detail that matchers test (R8).
 */
import type { Outcome } from "./outcome.ts";
import { isTimeoutMs } from "./signal.ts";
import type { ValueCheck } from "./value-check.ts";

/** What a point allows: a `gate` may reject, an `observe` point may only change data. */
export type PointKind = "gate" | "observe";

declare const inputType: unique symbol;
declare const outputType: unique symbol;

/** A named lifecycle point: its kind, input and output types, and what matchers test. */
export interface Point<I = any, O = any, K extends PointKind = PointKind> {
  readonly name: string;
  readonly kind: K;
  /** What a matcher's name part is tested against (tool name, session source, model id...). */
  readonly subject?: ((input: I) => string | undefined) | undefined;
  /** What a `Name(pattern)` condition is tested against (a shell command, a file path, a URL). */
  readonly detail?: ((input: I) => string | undefined) | undefined;
  /** What a `{ stepType }` matcher is tested against: the kind of run this was, read from its outcome once it has ended. */
  readonly stepType?: ((outcome: Outcome<O>, input: I) => string | undefined) | undefined;
  /** Default deadline for a whole run of this point, in ms. */
  readonly timeoutMs?: number | undefined;
  /**
   * Gates only: a `Reject` in `before` does not stop the other `before` hooks; every reason is
   * collected, the operation is skipped if anyone rejected, and the outcome joins them all
   * (DESIGN section 4: on `stop`, every hook's reason for continuing is fed back).
   */
  readonly collect?: boolean | undefined;
  /** What an input a hook gives (a `before`'s `Transform`, `next(input)`, an approver's edit) must look like. */
  readonly input?: ValueCheck | undefined;
  /** What an output a hook gives (a `Replace`, an `after`'s or `around`'s `Transform`, an `around`'s own outcome) must look like. */
  readonly output?: ValueCheck | undefined;
  /** Phantom: the input type. Never present at run time. */
  readonly [inputType]?: I;
  /** Phantom: the output type. Never present at run time. */
  readonly [outputType]?: O;
}

/** A point whose hooks may reject the run. */
export type GatePoint<I, O> = Point<I, O, "gate">;
/** A point whose hooks may change data but never reject. */
export type ObservePoint<I, O> = Point<I, O, "observe">;

/** A record of points, as given to `createStack`. */
export type Points = Record<string, Point>;

/** The input type of a point. */
export type InputOf<P> = P extends Point<infer I, any, any> ? I : never;
/** The output type of a point. */
export type OutputOf<P> = P extends Point<any, infer O, any> ? O : never;
/** The kind (`gate` or `observe`) of a point. */
export type KindOf<P> = P extends Point<any, any, infer K> ? K : never;

/** What `gate` and `observe` take to define a point. */
export interface PointOptions<I, O = unknown> {
  readonly name: string;
  /** What a matcher's name part is tested against (tool name, session source, model id...). */
  readonly subject?: (input: I) => string | undefined;
  /** What a `Name(pattern)` condition is tested against (a shell command, a file path, a URL). */
  readonly detail?: (input: I) => string | undefined;
  /**
   * The run's step type, for `{ stepType }` matchers, read from its outcome once the run has ended
   * (the agent's `step` point: `"tool"`, `"final"` or `"error"`).
   */
  readonly stepType?: (outcome: Outcome<O>, input: I) => string | undefined;
  readonly timeoutMs?: number;
  readonly collect?: boolean;
  /**
   * Checks an input a hook gives (a `before`'s `Transform`, `next(input)`, an approver's edit):
   * undefined when it fits, else what is wrong. A refused value is the hook's `invalid-action` failure.
   */
  readonly input?: ValueCheck;
  /**
   * Checks an output a hook gives (a `Replace`, an `after`'s or `around`'s `Transform`, an outcome
   * an `around` built): undefined when it fits, else what is wrong. The operation's own value is not checked.
   */
  readonly output?: ValueCheck;
}

const definePoint = <I, O, K extends PointKind>(kind: K, options: PointOptions<I, O>): Point<I, O, K> => {
  if (typeof options?.name !== "string" || options.name === "") throw new TypeError("point: name must be a non-empty string");
  for (const field of ["subject", "detail", "stepType", "input", "output"] as const) {
    if (options[field] !== undefined && typeof options[field] !== "function")
      throw new TypeError(`point "${options.name}": ${field} must be a function`);
  }
  if (options.timeoutMs !== undefined && !isTimeoutMs(options.timeoutMs))
    throw new TypeError(
      `point "${options.name}": timeoutMs must be a positive number of ms up to 2147483647 (timers cannot wait longer), got ${String(options.timeoutMs)}`,
    );
  if (options.collect !== undefined && (typeof options.collect !== "boolean" || (options.collect && kind !== "gate")))
    throw new TypeError(`point "${options.name}": collect must be a boolean, and only gates may collect rejections`);
  return Object.freeze({ kind, ...options }) as Point<I, O, K>;
};

/**
 * Define a gate point: hooks on it may `Reject`.
 *
 * @example
 * const toolCall = gate<ToolCall, ToolResult>({ name: "toolCall", subject: (c) => c.name })
 */
export const gate = <I, O>(options: PointOptions<I, O>): GatePoint<I, O> => definePoint<I, O, "gate">("gate", options);

/**
 * Define an observation point: hooks on it may change data but never abort.
 *
 * @example
 * const modelCall = observe<ModelRequest, ModelResponse>({ name: "modelCall", subject: (r) => r.model })
 */
export const observe = <I, O>(options: PointOptions<I, O>): ObservePoint<I, O> => definePoint<I, O, "observe">("observe", options);
