/**
 * JSON in and out of external hooks. Parsing drops `__proto__`, `constructor` and
 * `prototype` keys at every depth, so nothing an external hook writes can reach a prototype
 * (I1). Serialising refuses what JSON cannot carry (BigInt, cycles, functions) with the path
 * of the offending field, and caps the size before anything is sent (I2, I4).
 */
import { brandError } from "../core/errors.ts";

const dangerous = new Set(["__proto__", "constructor", "prototype"]);

/**
 * `JSON.parse` without prototype keys: they are removed wherever they appear.
 *
 * @example
 * parseJson('{"__proto__":{"polluted":1},"a":1}') // { a: 1 }
 */
export const parseJson = (text: string): unknown => JSON.parse(text, (key, value: unknown) => (dangerous.has(key) ? undefined : value));

/**
 * The keys a JSON text names twice in one object, as paths (`hookSpecificOutput.permissionDecision`),
 * in the order met. `JSON.parse` keeps the last of each, as Claude Code does; a hook that prints two
 * decisions should hear that only one was read. `text` must be valid JSON (it is scanned, not
 * parsed: one pass, linear in its length).
 *
 * @example
 * duplicateKeys('{"decision":"approve","decision":"block"}') // ["decision"]
 */
export const duplicateKeys = (text: string): string[] => {
  const found: string[] = [];
  // One entry per open container: the keys of an object so far (and the key being read), or null for an array.
  const stack: ({ keys: Set<string>; at: string } | null)[] = [];
  const where = (key: string): string => [...stack.flatMap((s) => (s === null || s.at === "" ? [] : [s.at])).slice(0, -1), key].join(".");
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      const token = text.slice(i, j + 1);
      i = j;
      const top = stack.at(-1);
      if (top === undefined || top === null) continue;
      let k = j + 1;
      while (text[k] === " " || text[k] === "\t" || text[k] === "\n" || text[k] === "\r") k++;
      if (text[k] !== ":") continue;
      const key = token.includes("\\") ? (JSON.parse(token) as string) : token.slice(1, -1);
      top.at = key;
      if (top.keys.has(key)) found.push(where(key));
      else top.keys.add(key);
    } else if (c === "{") stack.push({ keys: new Set(), at: "" });
    else if (c === "[") stack.push(null);
    else if (c === "}" || c === "]") stack.pop();
  }
  return found;
};

/**
 * Thrown by `stringifyEvent` for a value JSON cannot carry faithfully; `path` names the field.
 *
 * @example
 * try { stringifyEvent({ n: 1n }) } catch (e) { (e as SerializeError).path } // "n"
 */
export class SerializeError extends TypeError {
  override name = "SerializeError";
  constructor(
    readonly path: string,
    problem: string,
  ) {
    super(`cannot send ${path || "the event"} to an external hook: ${problem}`);
  }
}
brandError(SerializeError);

const describePath = (path: readonly (string | number)[]): string =>
  path
    .map((p) => (typeof p === "number" ? `[${p}]` : /^[A-Za-z_$][\w$]*$/.test(p) ? `.${p}` : `[${JSON.stringify(p)}]`))
    .join("")
    .replace(/^\./, "");

/**
 * Serialise an event for an external hook: plain data only, at most `maxBytes` of UTF-8.
 * `undefined` fields are left out (as JSON does); `Error`s become `{ name, message }`.
 *
 * @example
 * stringifyEvent({ tool_input: { n: 1n } }) // throws SerializeError: cannot send tool_input.n ...: BigInt
 */
export const stringifyEvent = (value: unknown, maxBytes = 16 * 1024 * 1024, maxDepth = 256): string => {
  const seen = new Set<object>();
  const walk = (v: unknown, path: (string | number)[]): unknown => {
    if (v === null || typeof v === "string" || typeof v === "boolean") return v;
    if (typeof v === "number") {
      if (!Number.isFinite(v)) throw new SerializeError(describePath(path), `${v} is not a finite number`);
      return v;
    }
    if (typeof v === "undefined") return undefined;
    if (typeof v === "bigint") throw new SerializeError(describePath(path), "BigInt has no JSON form");
    if (typeof v === "function" || typeof v === "symbol") throw new SerializeError(describePath(path), `a ${typeof v} has no JSON form`);
    if (path.length > maxDepth) throw new SerializeError(describePath(path), `nesting deeper than ${maxDepth}`);
    const obj = v as object;
    if (seen.has(obj)) throw new SerializeError(describePath(path), "circular reference");
    if (obj instanceof Error) return { name: obj.name, message: obj.message };
    if (obj instanceof Date) return obj.toISOString();
    seen.add(obj);
    try {
      if (Array.isArray(obj)) return obj.map((item, i) => walk(item, [...path, i]) ?? null);
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(obj)) {
        if (dangerous.has(key)) continue;
        const item = walk((obj as Record<string, unknown>)[key], [...path, key]);
        if (item !== undefined) out[key] = item;
      }
      return out;
    } finally {
      seen.delete(obj);
    }
  };
  const text = JSON.stringify(walk(value, []));
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > maxBytes) throw new SerializeError("", `${bytes} bytes is more than the ${maxBytes}-byte limit`);
  return text;
};
