/**
 * A redactor: detectors plus what to do with each kind they find. It rewrites text and
 * JSON-like values and reports what it found, so the redaction hooks, the stream redactor and
 * the audit log all apply one policy.
 */
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { contentText } from "../agent/content-text.ts";
import { defaultDetectors, kindsOf, scan, type Detection, type Detector } from "./detectors.ts";
import { rebuiltObject } from "./rebuilt-object.ts";
import { namesSecret } from "./secret-detectors.ts";
import { nearestName } from "../core/nearest-name.ts";
import { integerOption, knownOptions } from "./options.ts";

/**
 * What to do with a match: `block` refuses the whole value, `redact` writes `[REDACTED:<kind>]`,
 * `mask` keeps the last four characters, `hash` writes a stable sha256 prefix (`[<kind>:sha256:<12 hex>]`).
 */
export type Strategy = "block" | "redact" | "mask" | "hash";

/** Options of `createRedactor`: the detectors, the strategy per kind, the salt and the depth limit. */
export interface RedactorOptions {
  /** Default: `defaultDetectors()`. Add `pattern(...)`s for your own secrets. */
  readonly detectors?: readonly Detector[];
  /** Strategy for every kind without its own; default `redact`. */
  readonly strategy?: Strategy;
  /** Strategy by kind, e.g. `{ api_key: "block", email: "hash" }`. */
  readonly strategies?: Readonly<Record<string, Strategy>>;
  /** Mixed into hashes so that low-entropy values (emails, phones) cannot be found by hashing guesses; default none. */
  readonly salt?: string;
  /** Deepest nesting of a value that is scanned; deeper values make `value()` throw (fail closed). Default 64. */
  readonly maxDepth?: number;
}

/** What a redaction found and did. */
export interface Redacted<T> {
  readonly value: T;
  /** True when something was rewritten. */
  readonly changed: boolean;
  /** Kinds found whose strategy is `block` (empty when nothing blocks). */
  readonly blocked: readonly string[];
  /** Every kind found, once each, in order of first appearance. */
  readonly kinds: readonly string[];
}

/** Finds secrets and personal data in text and values, and rewrites them by each kind's strategy. */
export interface Redactor {
  readonly detectors: readonly Detector[];
  /** The strategy used for a kind. */
  strategyOf(kind: string): Strategy;
  /** The replacement for one match. */
  replace(kind: string, match: string): string;
  /** Rewrite `text` with the given detections (from `scan`), skipping `block` kinds. */
  apply(text: string, detections: readonly Detection[]): string;
  /** Scan and rewrite a string. */
  text(text: string): Redacted<string>;
  /** Rewrite every match, `block` kinds included (as `[REDACTED:<kind>]`): for logs and traces, where refusing is not an option. */
  scrub(text: string): string;
  /**
   * Scan and rewrite every string in a JSON-like value, object keys included (see `value` in
   * `createRedactor`); unchanged parts keep their identity.
   */
  value<T>(value: T): Redacted<T>;
}

const strategies = new Set<string>(["block", "redact", "mask", "hash"]);
/** Strictest first: what a span of several kinds is rewritten with. */
const strictness: readonly Strategy[] = ["block", "redact", "hash", "mask"];

/**
 * Build a redactor (one policy to share between `redaction`, `audit`, `tracing` and the Chrome trace); options are checked here.
 *
 * @example
 * const r = createRedactor({ strategies: { email: "hash" } })
 * r.text("mail bob@example.com").value // "mail [email:sha256:5ff860bf1190]"
 */
export const createRedactor = (options: RedactorOptions = {}): Redactor =>
  redactorFor(
    "redaction",
    knownOptions("createRedactor", options, { detectors: true, strategy: true, strategies: true, salt: true, maxDepth: true }),
  );

/**
 * `createRedactor` for the hook named `hook`: an option it refuses is reported under that name.
 *
 * @example
 * redactorFor("pii", { salt: 1 as never }) // throws TypeError: pii: salt must be a string, got 1
 */
export const redactorFor = (hook: string, options: RedactorOptions): Redactor => {
  const detectors = options.detectors ?? defaultDetectors();
  if (!Array.isArray(detectors) || detectors.some((d) => typeof d?.find !== "function" || typeof d.kind !== "string"))
    throw new TypeError(`${hook}: detectors must be a list of detectors (see pattern())`);
  const fallback = options.strategy ?? "redact";
  if (!strategies.has(fallback)) throw new TypeError(`${hook}: strategy must be one of block, redact, mask, hash, got ${String(fallback)}`);
  const byKind = new Map<string, Strategy>();
  const kinds = [...new Set(detectors.map((d) => d.kind))];
  for (const [kind, s] of Object.entries(options.strategies ?? {})) {
    if (!strategies.has(s)) throw new TypeError(`${hook}: strategies.${kind} must be one of block, redact, mask, hash, got ${String(s)}`);
    // A kind no detector finds would leave the kind meant (`email` for `emial`) under the default strategy, in silence.
    if (!kinds.includes(kind)) {
      const near = nearestName(kind, kinds);
      throw new TypeError(
        `${hook}: strategies.${kind}: no detector finds the kind ${JSON.stringify(kind)}${near === undefined ? "" : ` (did you mean ${JSON.stringify(near)}?)`}; the kinds are ${kinds.join(", ")}`,
      );
    }
    byKind.set(kind, s);
  }
  const salt: unknown = options.salt === undefined ? "" : options.salt;
  // Checked here: a number would only fail inside createHash, on the first value to hash.
  if (typeof salt !== "string") throw new TypeError(`${hook}: salt must be a string, got ${String(salt)}`);
  const maxDepth = integerOption(hook, "maxDepth", options.maxDepth ?? 64, 1);
  const strategyOf = (kind: string): Strategy => byKind.get(kind) ?? fallback;

  /** The strictest strategy among a span's kinds (it may have merged several): a mask must not show what a redact hides. */
  const strategyFor = (d: Detection): Strategy => {
    let best = strategyOf(d.kind);
    for (const kind of d.also ?? []) {
      const s = strategyOf(kind);
      if (strictness.indexOf(s) < strictness.indexOf(best)) best = s;
    }
    return best;
  };

  const replace = (kind: string, match: string): string => rewrite(strategyOf(kind), kind, match);

  const rewrite = (strategy: Strategy, kind: string, match: string): string => {
    switch (strategy) {
      case "mask":
        // Short matches are masked whole: their last four would be most of them.
        return match.length <= 8 ? "*".repeat(match.length) : "*".repeat(match.length - 4) + match.slice(-4);
      case "hash":
        return `[${kind}:sha256:${createHash("sha256").update(salt).update(match).digest("hex").slice(0, 12)}]`;
      default:
        return `[REDACTED:${kind}]`;
    }
  };

  /** Rewrite `text` at `detections`; a span whose strategy is `block` is left as it is, or labelled when `scrubbing` (logs cannot refuse). */
  const rewriteAll = (text: string, detections: readonly Detection[], scrubbing: boolean): string => {
    let out = "";
    let at = 0;
    for (const d of detections) {
      let strategy = strategyFor(d);
      if (strategy === "block") {
        if (!scrubbing) continue;
        strategy = "redact";
      }
      out += text.slice(at, d.start) + rewrite(strategy, d.kind, text.slice(d.start, d.end));
      at = d.end;
    }
    return at === 0 ? text : out + text.slice(at);
  };

  const apply = (text: string, detections: readonly Detection[]): string => rewriteAll(text, detections, false);

  /** Record what `found` holds: every kind, and those that block. */
  const note = (found: readonly Detection[], kinds: Set<string>, blocked: Set<string>): void => {
    for (const d of found) {
      // A span merged from overlapping matches is each of their kinds: any of them may block.
      for (const kind of kindsOf(d)) {
        kinds.add(kind);
        if (strategyOf(kind) === "block") blocked.add(kind);
      }
    }
  };

  const redactString = (text: string, kinds: Set<string>, blocked: Set<string>): string => {
    const found = scan(text, detectors);
    if (found.length === 0) return text;
    note(found, kinds, blocked);
    return apply(text, found);
  };

  /**
   * A value we cannot rebuild (a class instance, another realm's object, anything with a `toJSON`)
   * reaches a model, a log or a client as its JSON, so its JSON is what is scanned. Clean, it is
   * returned as it is (a Date stays a Date); with something found, as its redacted JSON form, the
   * only form of it we can vouch for.
   */
  const walkSerialised = (value: object, depth: number, seen: Set<object>, kinds: Set<string>, blocked: Set<string>): unknown => {
    // Serialised as the loop writes a tool result for the model (BigInts as digits, a cycle as
    // "[Circular]"), so that the text scanned is the text read, and an entity graph does not fail.
    const text = contentText(value);
    let plain: unknown;
    try {
      plain = JSON.parse(text);
    } catch {
      // Not JSON: either its JSON is nothing (a toJSON returning undefined) and the loop writes it
      // as a string, or serialising it threw and contentText gave its placeholder, which scans
      // clean. Read again, it must read the same: one that threw once (a relation not loaded yet)
      // may serialise in the loop with nothing scanned, and one that throws again fails here, closed.
      if ((JSON.stringify(value, digits) ?? String(value)) !== text)
        throw new TypeError("redaction: value did not serialise the same way twice; refusing to pass it unchecked");
      plain = text;
    }
    const next = walk(plain, depth, seen, kinds, blocked);
    return next === plain ? value : next;
  };

  /** A value under a key that names a secret, scanned with `key=` before it as context; a number found so becomes its redacted text. */
  const redactNamed = (key: string, item: string | number | bigint, kinds: Set<string>, blocked: Set<string>): unknown => {
    const text = String(item);
    const at = key.length + 1;
    const found = scan(`${key}=${text}`, detectors, at);
    if (found.length === 0) return item;
    const shifted = found.map((d) => ({ ...d, start: d.start - at, end: d.end - at }));
    note(shifted, kinds, blocked);
    const out = apply(text, shifted);
    return typeof item === "string" || out !== text ? out : item;
  };

  /** A number long enough to be a card number is scanned as its digits; found, it becomes its redacted text. */
  const redactNumber = (item: number, kinds: Set<string>, blocked: Set<string>): unknown => {
    const text = String(item);
    const out = redactString(text, kinds, blocked);
    return out === text ? item : out;
  };

  const walk = (value: unknown, depth: number, seen: Set<object>, kinds: Set<string>, blocked: Set<string>): unknown => {
    if (typeof value === "string") return redactString(value, kinds, blocked);
    if (typeof value === "function") return hasToJSON(value) ? walkSerialised(value, depth, seen, kinds, blocked) : value;
    if (typeof value !== "object" || value === null) return value;
    // Bytes: a Buffer's own toJSON writes only its type and its bytes as numbers, never the text
    // they may encode, so no detector could match what the model reads; scanning it number by
    // number cost about a second per megabyte. Any other view (a typed array's own fields, a
    // subclass's or an instance's toJSON, a DataView's properties) can carry text: it is scanned.
    if (isBareBuffer(value)) return value;
    if (hasToJSON(value) || !(Array.isArray(value) || isPlain(value))) return walkSerialised(value, depth, seen, kinds, blocked);
    if (depth >= maxDepth) throw new RangeError(`redaction: value nested deeper than ${maxDepth} levels; refusing to pass it unchecked`);
    if (seen.has(value)) throw new TypeError("redaction: value has a cycle; refusing to pass it unchecked");
    seen.add(value);
    try {
      if (Array.isArray(value)) {
        let copy: unknown[] | undefined;
        // A loop, not a callback per item: a lock file has thousands of short arrays and objects.
        // A hole reads as undefined, which is returned as it is.
        for (let i = 0; i < value.length; i++) {
          const item: unknown = value[i];
          const next = walk(item, depth + 1, seen, kinds, blocked);
          if (next !== item) (copy ??= [...value])[i] = next;
        }
        return copy ?? value;
      }
      // Keys are data too (an address book keyed by email, a token used as a cache key): each is
      // scanned like a value, and a value is scanned with its key before it as context, so
      // `{ "password": "hunter22" }` reads as `password=hunter22` does.
      const entries = Object.entries(value);
      let keys: string[] | undefined;
      let values: unknown[] | undefined;
      for (let i = 0; i < entries.length; i++) {
        const [key, item] = entries[i] as [string, unknown];
        const newKey = redactString(key, kinds, blocked);
        const next =
          (typeof item === "string" || typeof item === "number" || typeof item === "bigint") && namesSecret(key)
            ? redactNamed(key, item, kinds, blocked)
            : typeof item === "number" && Math.abs(item) >= 1e12
              ? redactNumber(item, kinds, blocked)
              : walk(item, depth + 1, seen, kinds, blocked);
        if (newKey !== key) (keys ??= entries.map(([k]) => k))[i] = newKey;
        if (next !== item) (values ??= entries.map(([, v]) => v))[i] = next;
      }
      if (keys === undefined && values === undefined) return value;
      return rebuiltObject(entries, keys, values);
    } finally {
      seen.delete(value);
    }
  };

  return {
    detectors,
    strategyOf,
    replace,
    apply,
    scrub: (text) => rewriteAll(text, scan(text, detectors), true),
    text: (text) => {
      const kinds = new Set<string>();
      const blocked = new Set<string>();
      const value = redactString(text, kinds, blocked);
      return { value, changed: value !== text, blocked: [...blocked], kinds: [...kinds] };
    },
    value: <T>(value: T): Redacted<T> => {
      const kinds = new Set<string>();
      const blocked = new Set<string>();
      const out = walk(value, 0, new Set(), kinds, blocked) as T;
      return { value: out, changed: out !== value, blocked: [...blocked], kinds: [...kinds] };
    },
  };
};

/** An object of this realm's `Object` or of none: data we can copy key by key. */
const isPlain = (value: object): boolean => {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
};

/** Whether the JSON serialiser would call a `toJSON` of this value (and write what it returns, not the value). */
const hasToJSON = (value: object): boolean => typeof (value as { toJSON?: unknown }).toJSON === "function";

/** A Buffer whose JSON is Buffer's own (`{ type, data }`, bytes only): no own or subclass `toJSON`. */
const isBareBuffer = (value: object): boolean =>
  Buffer.isBuffer(value) && !Object.hasOwn(value, "toJSON") && value.toJSON === Buffer.prototype.toJSON;

/** A JSON replacer writing BigInts as their digits, as contentText does. */
const digits = (_key: string, value: unknown): unknown => (typeof value === "bigint" ? value.toString() : value);
