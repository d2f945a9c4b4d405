/**
 * A tool's failure as the model may read it. The loop writes a failed call's message (`Tool X
 * failed: ...`), and an `after` does not run on a failure (R5), so `redaction` scrubs what was
 * thrown on its way out. It stays a failure of the same class, so that retry and recover hooks
 * outside still judge it by its class, name and status.
 */
import { describe } from "../core/errors.ts";
import { rebuiltObject } from "./rebuilt-object.ts";
import type { Redactor } from "./redactor.ts";

/**
 * What was thrown, with every match rewritten (`block` kinds labelled: a failure cannot be
 * refused). An error is never changed: the application may hold the same object (a shared
 * request's promise, a client's last error). A scrubbed one is a copy that reads as the original
 * but for its message and stack (see copyOf). A string is rewritten, an object thrown as data is
 * returned as its scrubbed JSON form; anything clean is returned as it is. What cannot be scrubbed
 * so becomes a plain Error with the scrubbed text the loop would write.
 *
 * @example
 * scrubFailure(createRedactor(), new HttpError(`bad key ${key}`)) // an HttpError: "bad key [REDACTED:api_key]"
 */
export const scrubFailure = (redactor: Redactor, thrown: unknown): unknown => {
  try {
    return scrubbedFailure(redactor, thrown);
  } catch {
    // What cannot be read, copied or written as JSON (a Proxy refusing to list its keys, a thrown
    // object with a cycle or a getter that throws) is still a failure: a hook that threw here would
    // turn it into a refusal of the call. Its text is what the loop writes (`describe`), scrubbed.
    return new Error(redactor.scrub(describe(thrown)));
  }
};

const scrubbedFailure = (redactor: Redactor, thrown: unknown): unknown => {
  // Text is scanned as it is shown: the loop writes it through `describe`, which drops terminal
  // escapes and controls, so one inside a key (`sk-ant-…\x1b[0m…`) must not split it for the scan.
  const scrub = (text: string): { readonly shown: string; readonly scrubbed: string } => {
    const shown = describe(text);
    return { shown, scrubbed: redactor.scrub(shown) };
  };
  if (typeof thrown === "string") {
    const { shown, scrubbed } = scrub(thrown);
    return scrubbed === shown ? thrown : scrubbed;
  }
  if (thrown instanceof Error) {
    const message = scrub(thrown.message);
    const stack = typeof thrown.stack === "string" ? scrub(thrown.stack) : undefined;
    // With no message, the loop writes the name instead (`describe`): then it is read, and scrubbed.
    const name = thrown.message ? undefined : scrub(String(thrown.name));
    const clean = (text: { readonly shown: string; readonly scrubbed: string } | undefined) =>
      text === undefined || text.scrubbed === text.shown;
    if (clean(message) && clean(stack) && clean(name)) return thrown;
    return copyOf(thrown, message.scrubbed, stack?.scrubbed, clean(name) ? undefined : name?.scrubbed);
  }
  if (typeof thrown !== "object" || thrown === null) return thrown;
  // What the loop writes of a thrown object is its JSON: that is what is scrubbed.
  const json = JSON.stringify(thrown, (_key, item: unknown) => (typeof item === "bigint" ? item.toString() : item)) as string | undefined;
  if (json === undefined) return thrown;
  // Keys too: a thrown object may key its data by an address or a token.
  const scrubbed = JSON.parse(json, (_key, item: unknown) => {
    if (typeof item === "string") return scrub(item).scrubbed;
    if (typeof item !== "object" || item === null || Array.isArray(item)) return item;
    const entries = Object.entries(item);
    const keys = entries.map(([key]) => scrub(key).scrubbed);
    return keys.every((key, i) => key === entries[i]?.[0]) ? item : rebuiltObject(entries, keys, undefined);
  }) as unknown;
  return JSON.stringify(scrubbed) === json ? thrown : scrubbed;
};

/**
 * A copy of `error` that reads as it does but for its message and stack (and its name, when given). A real Error (loggers
 * test util.types.isNativeError, and util.inspect shows a Proxy's target, the secret with it) with
 * the original's own data fields, whose prototype reads everything else from the original with
 * the original as `this`: getters of #private fields, WeakMaps or internal slots (DOMException's
 * name) work only there. `instanceof` still holds, as the original's prototype is the next one up.
 * Nothing is ever written to the original: a write to the copy lands on the copy.
 */
const copyOf = (error: Error, message: string, stack: string | undefined, name: string | undefined): Error => {
  const own = (value: string) => ({ value, writable: true, enumerable: false, configurable: true });
  const copy = new Error(message);
  const fields = Object.getOwnPropertyDescriptors(error);
  for (const [key, field] of Object.entries(fields)) {
    if (key === "message" || key === "stack" || !("value" in field)) continue; // an accessor is read from the original, below
    Object.defineProperty(copy, key, field);
  }
  Object.defineProperty(copy, "message", own(message));
  if (stack !== undefined) Object.defineProperty(copy, "stack", own(stack));
  else delete copy.stack; // the original had none of its own: no trace of where the copy was made
  if (name !== undefined) Object.defineProperty(copy, "name", own(name));
  Object.setPrototypeOf(copy, new Proxy(error, { get: (original, key) => Reflect.get(original, key, original) }));
  if (Object.isFrozen(error)) Object.freeze(copy);
  return copy;
};
