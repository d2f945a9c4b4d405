/**
 * `{ metadata: { key: condition } }`: a matcher on the run's metadata (`RunOptions.metadata`, what
 * hooks read as `ctx.metadata`): presence and equality checks. Metadata is per run, so
 * this matcher is tested on every run, never cached with the subject's chain.
 */
import type { MetadataValue } from "./types.ts";

/** One key's compiled condition: whether the value found (`undefined` when the key is absent) satisfies it. */
type KeyTest = (value: unknown, present: boolean) => boolean;

/** A checked key of a metadata matcher, ready to test. */
export interface MetadataRule {
  readonly key: string;
  readonly test: KeyTest;
}

const isValue = (v: unknown): v is MetadataValue => v === null || typeof v === "string" || typeof v === "boolean" || typeof v === "number";

// `===`, except that NaN equals NaN (a number read from JSON is never NaN, but a computed one may be).
// biome-ignore lint/suspicious/noSelfCompare: `x !== x` is the NaN test the comment above describes.
const same = (a: unknown, b: MetadataValue): boolean => a === b || (typeof b === "number" && b !== b && typeof a === "number" && a !== a);

const describeValue = (v: unknown): string =>
  v === null
    ? "null"
    : Array.isArray(v)
      ? "a list"
      : typeof v === "object"
        ? "an object"
        : typeof v === "function"
          ? "a function"
          : typeof v;

/**
 * Check a `{ metadata: … }` spec; `fail(path, problem)` throws the registration error for the
 * sub-path given (`metadata.env[1]`, …). Keys are the metadata's own keys, at its top level.
 *
 * @example
 * const rules = compileMetadata({ env: ["prod", "staging"], oncall: { exists: true } }, (p, m) => { throw new Error(`${p} ${m}`); });
 * metadataMatches(rules, { env: "prod", oncall: "ana" }) // true
 */
export const compileMetadata = (spec: unknown, fail: (path: string, problem: string) => never): readonly MetadataRule[] => {
  if (typeof spec !== "object" || spec === null || Array.isArray(spec))
    return fail("metadata", `must be an object of keys to values, got ${describeValue(spec)}`);
  const rules: MetadataRule[] = [];
  for (const key of Object.keys(spec)) {
    const path = `metadata${/^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`}`;
    const want = (spec as Record<string, unknown>)[key];
    rules.push({ key, test: keyTest(want, path, fail) });
  }
  if (rules.length === 0) return fail("metadata", "names no keys; omit match to match every run, or name the keys to compare");
  return rules;
};

const keyTest = (want: unknown, path: string, fail: (path: string, problem: string) => never): KeyTest => {
  if (isValue(want)) return (value, present) => present && same(value, want);
  if (Array.isArray(want)) {
    if (want.length === 0) return fail(path, "is an empty list, which no value is in; list the allowed values");
    want.forEach((v, i) => {
      if (!isValue(v)) fail(`${path}[${i}]`, `must be a string, number, boolean or null, got ${describeValue(v)}`);
    });
    // A copy: changing the caller's list after registration must not change the hook's matcher.
    const values = [...(want as readonly MetadataValue[])];
    return (value, present) => present && values.some((v) => same(value, v));
  }
  if (typeof want === "object" && want !== null) {
    const keys = Object.keys(want);
    const exists = (want as { exists?: unknown }).exists;
    if (keys.length !== 1 || keys[0] !== "exists" || typeof exists !== "boolean")
      return fail(
        path,
        `must be a value, a list of values or { exists: true | false }, got an object with ${keys.length === 0 ? "no keys" : `keys ${keys.join(", ")}`}`,
      );
    return (_value, present) => present === exists;
  }
  return fail(path, `must be a string, number, boolean, null, a list of those or { exists: true | false }, got ${describeValue(want)}`);
};

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * Whether `metadata` satisfies every rule. A key is present when it is the metadata's own key with
 * a value other than `undefined` (so `toString` and other inherited names are never present).
 *
 * @example
 * metadataMatches(compileMetadata({ env: "prod" }, (p, m) => { throw new Error(m); }), { env: "dev" }) // false
 */
export const metadataMatches = (rules: readonly MetadataRule[], metadata: Readonly<Record<string, unknown>> | undefined): boolean => {
  for (const rule of rules) {
    const value = metadata !== undefined && metadata !== null && hasOwn.call(metadata, rule.key) ? metadata[rule.key] : undefined;
    if (!rule.test(value, value !== undefined)) return false;
  }
  return true;
};
