/**
 * Options checked where they are given: a field the callee does not read is a \`TypeError\` naming
 * the callee, the field and the option meant, not a setting dropped in silence. Shared by
 * `createStack` and every layer above core: the agent, middleware, adapters and executors.
 */
import { describeGiven } from "./errors.ts";
import { nearestName } from "./nearest-name.ts";

/**
 * Refuse options that are not an object, or that hold a field the middleware does not read: a
 * misspelt option (`alow` for `allow`, `maxStep` for `maxSteps`) would otherwise be dropped in
 * silence and the guard run without it. `fields` lists every field of the options type, so the
 * compiler says when a field is added to the type and not here.
 *
 * @example
 * knownOptions("toolPolicy", { alow: ["Read"] }, { allow: true, deny: true })
 * // throws TypeError: toolPolicy: unknown option "alow" (did you mean "allow"?); its options are allow, deny
 */
export const knownOptions = <T extends object>(middleware: string, options: T, fields: { readonly [K in keyof Required<T>]: true }): T => {
  if (typeof options !== "object" || options === null || Array.isArray(options))
    throw new TypeError(`${middleware}: options must be an object, got ${Array.isArray(options) ? "a list" : show(options)}`);
  for (const key of Object.keys(options)) {
    if (Object.hasOwn(fields, key)) continue;
    const names = Object.keys(fields);
    const near = nearestName(key, names);
    throw new TypeError(
      `${middleware}: unknown option ${JSON.stringify(key)}${near === undefined ? "" : ` (did you mean ${JSON.stringify(near)}?)`}; its options are ${names.join(", ")}`,
    );
  }
  return options;
};

/**
 * A refused option's value as an error message shows it: as `describeGiven` shows a value (strings
 * quoted and cut, objects as JSON), but a function is named as such rather than printed as source.
 *
 * @example
 * show("yes") // "\"yes\""
 */
export const show = (value: unknown): string => (typeof value === "function" ? "a function" : describeGiven(value));
