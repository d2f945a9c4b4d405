/** Rebuilding a plain object whose keys or values a redaction rewrote. */

/**
 * A plain object with the given keys and values in the original order. Keys are defined, not
 * assigned: a `__proto__` key stays a plain key (I1). Two keys redacted alike (`[REDACTED:email]`
 * twice) would be one: a later one gets `#2`, `#3`... so no entry is lost.
 *
 * @example
 * rebuiltObject([["a@x.io", 1], ["b@x.io", 2]], ["[REDACTED:email]", "[REDACTED:email]"], undefined) // { "[REDACTED:email]": 1, "[REDACTED:email]#2": 2 }
 */
export const rebuiltObject = (
  entries: readonly (readonly [string, unknown])[],
  keys: readonly string[] | undefined,
  values: readonly unknown[] | undefined,
): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  const originals = keys === undefined ? undefined : new Set(entries.map(([k]) => k));
  entries.forEach(([key, item], i) => {
    const wanted = keys?.[i] ?? key;
    let name = wanted;
    if (name !== key) for (let n = 2; Object.hasOwn(out, name) || originals?.has(name); n++) name = `${wanted}#${n}`;
    Object.defineProperty(out, name, {
      value: values === undefined ? item : values[i],
      enumerable: true,
      writable: true,
      configurable: true,
    });
  });
  return out;
};
