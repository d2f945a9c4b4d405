/**
 * A tool input that is not an object (a model may send a bare string, an array or a number as a
 * call's arguments, and a tool with a loose schema runs it): hooks see it as `{ value }`, marked, so
 * that rules read the value itself as the call's detail (a shell tool given a bare string runs that
 * string) and adapters hand the tool the value again.
 */

/** The mark of a boxed input (a symbol: a model's JSON cannot hold one). */
export const boxedInput: unique symbol = Symbol.for("agent-onion.boxed-input");

/**
 * A tool input that is not an object as a `ToolCall` input.
 *
 * @example
 * boxInput("rm -rf /") // { value: "rm -rf /", [boxedInput]: true }
 */
export const boxInput = (value: unknown): Record<string, unknown> => ({ value, [boxedInput]: true });

/**
 * True for an input `boxInput` made.
 *
 * @example
 * isBoxedInput(boxInput([1, 2])) // true
 */
export const isBoxedInput = (input: unknown): input is { readonly value: unknown } =>
  typeof input === "object" && input !== null && (input as { [boxedInput]?: unknown })[boxedInput] === true;

/**
 * What the tool gets for the input hooks settled on, when the call's input was boxed: the value of a
 * `{ value }` record (a hook's rewrite, which may have dropped the mark), else the input as it is.
 *
 * @example
 * unboxInput({ value: "ls" }, true) // "ls"
 */
export const unboxInput = (input: unknown, wasBoxed: boolean): unknown => {
  if (isBoxedInput(input)) return input.value;
  if (!wasBoxed || typeof input !== "object" || input === null || Array.isArray(input)) return input;
  const keys = Object.keys(input);
  return keys.length === 1 && keys[0] === "value" ? (input as { value: unknown }).value : input;
};
