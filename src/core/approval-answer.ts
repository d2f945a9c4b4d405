/**
 * Reading an approver's answer strictly. The answer is first copied, once, into plain JSON data
 * (so a getter or a Proxy cannot answer one thing when checked and another when used), then
 * decoded with a schema (Effect Schema, loaded on the first answer: most processes never ask).
 * Anything but a well-formed approve, deny or edit becomes a denial whose reason says what was
 * wrong. An edit must also keep the shape of what was asked about (`editProblem`).
 */
import type { ApprovalDecision } from "./approval-types.ts";
import { describe, isInstance } from "./errors.ts";

/** Why a value is not plain JSON data, and where. */
export class NotPlainDataError extends Error {
  override name = "NotPlainDataError";
}

/** Bounds on what an answer may hold: deep nesting or millions of nodes are no approval. */
const maxDepth = 64;
const maxNodes = 100_000;

/**
 * Copy `value` into plain JSON data, reading each property once: `null`, booleans, finite numbers,
 * strings, arrays and objects whose prototype is `Object.prototype` or `null`. Object entries
 * whose value is `undefined` are dropped, as JSON drops them. Throws `NotPlainDataError` naming the
 * path for anything else (a class instance, a function, a cycle, a getter or Proxy trap that throws).
 *
 * @example
 * plainData({ a: [1, "x", null] }) // { a: [1, "x", null] }
 * plainData({ when: new Date() })  // throws NotPlainDataError: when: a Date is not plain data
 */
export const plainData = (value: unknown, where = ""): unknown => {
  const budget = { nodes: 0 };
  const ancestors = new Set<object>();
  const copy = (v: unknown, path: string, depth: number): unknown => {
    if (++budget.nodes > maxNodes) throw new NotPlainDataError(`${where}${path}: more than ${maxNodes} values`);
    if (v === null || typeof v === "string" || typeof v === "boolean") return v;
    if (typeof v === "number") {
      if (!Number.isFinite(v)) throw new NotPlainDataError(`${where}${path || "value"}: ${v} is not a JSON number`);
      return v;
    }
    if (typeof v !== "object")
      throw new NotPlainDataError(`${where}${path || "value"}: ${v === undefined ? "undefined" : `a ${typeof v}`} is not plain data`);
    if (depth >= maxDepth) throw new NotPlainDataError(`${where}${path}: nested more than ${maxDepth} levels`);
    if (ancestors.has(v)) throw new NotPlainDataError(`${where}${path || "value"}: refers to itself`);
    ancestors.add(v);
    try {
      if (Array.isArray(v)) {
        const length = v.length;
        const out: unknown[] = [];
        for (let i = 0; i < length; i++) out.push(copy(v[i], `${path}[${i}]`, depth + 1));
        return out;
      }
      const proto: unknown = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) {
        const name = (proto as { constructor?: { name?: unknown } } | null)?.constructor?.name;
        throw new NotPlainDataError(
          `${where}${path || "value"}: ${typeof name === "string" && name !== "" ? `a ${name}` : "an object with a prototype"} is not plain data`,
        );
      }
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(v)) {
        // Kept as a key, it would become a prototype wherever the input is copied by assignment
        // (`Object.assign`, a JSON round trip into a naive merge): fields the guards never saw.
        if (key === "__proto__")
          throw new NotPlainDataError(`${where}${path === "" ? key : `${path}.${key}`}: a __proto__ key is not plain data`);
        const item = (v as Record<string, unknown>)[key];
        if (item === undefined) continue;
        Object.defineProperty(out, key, {
          value: copy(item, path === "" ? key : `${path}.${key}`, depth + 1),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    } finally {
      ancestors.delete(v);
    }
  };
  try {
    return copy(value, "", 0);
  } catch (error) {
    if (isInstance(error, NotPlainDataError)) throw error;
    // A getter, a Proxy trap or a length that threw while being read.
    throw new NotPlainDataError(`${where}reading it threw: ${describe(error)}`);
  }
};

type Decoded =
  | { readonly decision: "approve"; readonly reason?: string | undefined; readonly by?: string | undefined }
  | { readonly decision: "deny"; readonly reason?: string | undefined; readonly by?: string | undefined }
  | { readonly decision: "edit"; readonly input: unknown; readonly reason?: string | undefined; readonly by?: string | undefined };

/**
 * The answer schema, as data: per decision, each field it may have, whether it must, and what its
 * value must be. Exact: a field it does not name makes the answer malformed. Checked by `decode`,
 * synchronously, with nothing to load: the first approval is read as fast as any other, and the
 * asking run settles in the same turn as its answer.
 */
const schema: Readonly<Record<Decoded["decision"], Readonly<Record<string, { readonly required: boolean; readonly type?: "string" }>>>> = {
  approve: { decision: { required: true }, reason: { required: false, type: "string" }, by: { required: false, type: "string" } },
  deny: { decision: { required: true }, reason: { required: false, type: "string" }, by: { required: false, type: "string" } },
  edit: {
    decision: { required: true },
    input: { required: true },
    reason: { required: false, type: "string" },
    by: { required: false, type: "string" },
  },
};
const decisions = Object.keys(schema) as Decoded["decision"][];
const quoted = (v: unknown): string => (typeof v === "string" ? JSON.stringify(v) : describeJson(v));
const describeJson = (v: unknown): string => {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
};

/** Check plain data (what `plainData` made) against `schema`: the answer, or the first problem, naming its field. */
const decode = (
  value: Readonly<Record<string, unknown>>,
): { readonly ok: true; readonly answer: Decoded } | { readonly ok: false; readonly problem: string } => {
  // Fields left undefined are as absent (an approver that spreads optional fields).
  const present = Object.keys(value).filter((k) => value[k] !== undefined);
  if (!present.includes("decision")) return { ok: false, problem: "decision is missing" };
  const decision = value.decision;
  if (!decisions.includes(decision as Decoded["decision"]))
    return { ok: false, problem: `decision: expected ${decisions.map((d) => JSON.stringify(d)).join(" | ")}, got ${quoted(decision)}` };
  const fields = schema[decision as Decoded["decision"]];
  const known = Object.keys(fields);
  for (const key of present)
    if (!Object.hasOwn(fields, key))
      return { ok: false, problem: `${key} is unexpected, expected: ${known.map((k) => JSON.stringify(k)).join(" | ")}` };
  for (const [key, field] of Object.entries(fields)) {
    if (!present.includes(key)) {
      if (field.required) return { ok: false, problem: `${key} is missing` };
      continue;
    }
    if (field.type !== undefined && typeof value[key] !== field.type)
      return { ok: false, problem: `${key}: expected ${field.type}, got ${quoted(value[key])}` };
  }
  const answer = Object.fromEntries(present.map((k) => [k, value[k]])) as Decoded;
  return { ok: true, answer };
};

/** The shape an answer must have, for reasons that say what was expected. */
const expected = `{ decision: "approve" | "deny" | "edit", reason?: string, by?: string, input (edit only) }`;

/**
 * Read an approver's answer strictly. Returns the decision it holds, or a denial saying why it is
 * not one: a boolean, a string, an object with another tag, a field of the wrong type or an
 * unknown field, a getter or Proxy that throws, an edit without an input or with one that is not
 * plain JSON data. A deny without a reason gets one.
 *
 * @example
 * await readAnswer({ decision: "approve" })  // { decision: "approve" }
 * await readAnswer(true)                     // { decision: "deny", reason: "the approver's answer is not an approval: expected { decision: ... }, got true" }
 */
export const readAnswer = async (raw: unknown): Promise<ApprovalDecision> => {
  let value: unknown;
  try {
    value = plainData(raw);
  } catch (error) {
    return malformed((error as Error).message);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return malformed(`expected ${expected}, got ${describe(value)}`);
  const decoded = decode(value as Record<string, unknown>);
  if (!decoded.ok) return malformed(decoded.problem);
  const a = decoded.answer;
  const extra = { ...(a.reason !== undefined ? { reason: a.reason } : {}), ...(a.by !== undefined ? { by: a.by } : {}) };
  if (a.decision === "approve") return { decision: "approve", ...extra };
  if (a.decision === "edit") return { decision: "edit", input: a.input, ...extra };
  return { decision: "deny", ...extra, reason: a.reason !== undefined && a.reason.trim() !== "" ? a.reason : "denied by the approver" };
};

const malformed = (problem: string): ApprovalDecision => ({
  decision: "deny",
  reason: `the approver's answer is not an approval: ${problem}`,
});

/** A value's JSON kind, for shape comparisons. */
const kindOf = (v: unknown): string =>
  v === null
    ? "null"
    : Array.isArray(v)
      ? "an array"
      : typeof v === "object"
        ? "an object"
        : typeof v === "string"
          ? "a string"
          : typeof v === "number"
            ? "a number"
            : typeof v === "boolean"
              ? "a boolean"
              : typeof v;

/**
 * Why `edited` cannot replace `original` (undefined when it can): it must be of the same JSON kind
 * (an object stays an object), keep exactly the top-level fields (a tool call keeps `id`, `name` and
 * `input`, and gains none), keep the kind of every field both have, at any depth (a tool's `input`
 * object cannot become a string), and keep the point's subject (a call to `Bash` stays a call to
 * `Bash`), since guards already matched on it. Fields may be added or dropped below the top level
 * (every guard outside the asking hook reads the edited input again).
 *
 * @example
 * editProblem({ name: "Bash", input: { command: "ls" } }, { name: "Bash", input: "rm -rf /" }) // "input: the edit turns an object into a string"
 */
export const editProblem = (original: unknown, edited: unknown, subjectOf?: (input: unknown) => string | undefined): string | undefined => {
  const shape = sameShape(original, edited, "", true);
  if (shape !== undefined) return shape;
  if (subjectOf === undefined) return undefined;
  let before: string | undefined;
  let after: string | undefined;
  try {
    before = subjectOf(original);
    after = subjectOf(edited);
  } catch (error) {
    return `the point's subject of the edit cannot be computed: ${describe(error)}`;
  }
  return before === after ? undefined : `the edit changes what guards matched on (${JSON.stringify(before)} to ${JSON.stringify(after)})`;
};

const sameShape = (original: unknown, edited: unknown, path: string, top: boolean): string | undefined => {
  const a = kindOf(original);
  const b = kindOf(edited);
  if (a !== b) return `${path === "" ? "" : `${path}: `}the edit turns ${a} into ${b}`;
  if (a === "an array") {
    const x = original as readonly unknown[];
    const y = edited as readonly unknown[];
    for (let i = 0; i < Math.min(x.length, y.length); i++) {
      const problem = sameShape(x[i], y[i], `${path}[${i}]`, false);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  if (a !== "an object") return undefined;
  const x = original as Readonly<Record<string, unknown>>;
  const y = edited as Readonly<Record<string, unknown>>;
  for (const key of Object.keys(x)) {
    const at = path === "" ? key : `${path}.${key}`;
    if (x[key] === undefined) continue; // absent in JSON: nothing to keep
    if (!Object.hasOwn(y, key)) {
      if (top) return `the edit drops the field "${at}"`;
      continue;
    }
    const problem = sameShape(x[key], y[key], at, false);
    if (problem !== undefined) return problem;
  }
  if (top) for (const key of Object.keys(y)) if (!Object.hasOwn(x, key) && y[key] !== undefined) return `the edit adds the field "${key}"`;
  return undefined;
};
