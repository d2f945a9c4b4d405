/**
 * A tool result's content as the text a model reads. Tools return what their code has: database
 * rows with BigInt ids, objects that point back at themselves. `JSON.stringify` throws on both,
 * and a turn must not fail because a tool's answer was hard to print.
 */

/**
 * Strings as they are; anything else as JSON, where a BigInt is written as its digits and an
 * object inside itself as "[Circular]". Never throws.
 *
 * @example
 * contentText({ id: 12n, rows: 2 }) // '{"id":"12","rows":2}'
 */
export const contentText = (content: unknown): string => {
  if (typeof content === "string") return content;
  try {
    return JSON.stringify(content, tolerant()) ?? String(content);
  } catch {
    // A getter or toJSON that throws: say so rather than fail.
    return "[content that cannot be shown as text]";
  }
};

/** A JSON replacer that writes BigInts as strings and cuts cycles, tracking the ancestors of each value. */
const tolerant = () => {
  const ancestors: object[] = [];
  return function (this: object, _key: string, value: unknown): unknown {
    if (typeof value === "bigint") return value.toString();
    if (typeof value !== "object" || value === null) return value;
    // `this` is the object holding `value`: drop what is no longer above it.
    while (ancestors.length > 0 && ancestors[ancestors.length - 1] !== this) ancestors.pop();
    if (ancestors.includes(value)) return "[Circular]";
    ancestors.push(value);
    return value;
  };
};
