/**
 * Deep read-only views (R9). Hooks receive inputs and outputs through these types, and, unless
 * a stack opts out (`freeze: false`), frozen at run time, so a hook can never change what
 * another hook saw.
 */

/** The values `DeepReadonly` leaves as they are. */
export type Primitive = string | number | boolean | bigint | symbol | undefined | null;

/** A read-only view of `T`, all the way down: what hooks receive. */
export type DeepReadonly<T> = unknown extends T
  ? T // `unknown` and `any` stay as they are: there is nothing to make read-only
  : T extends Primitive | ((...args: any[]) => unknown)
    ? T
    : T extends ReadableStream<any> | AbortSignal | Date | RegExp | Error | Uint8Array
      ? T
      : T extends ReadonlyMap<infer K, infer V>
        ? ReadonlyMap<K, DeepReadonly<V>>
        : T extends ReadonlySet<infer V>
          ? ReadonlySet<DeepReadonly<V>>
          : T extends readonly (infer E)[]
            ? readonly DeepReadonly<E>[]
            : { readonly [K in keyof T]: DeepReadonly<T[K]> };

/** A value or a promise of it: hooks may answer synchronously (fast path) or not. */
export type MaybePromise<T> = T | PromiseLike<T>;

/** Values `deepFreeze` froze all the way down: passed again, they are not walked again. */
const frozenDeep = new WeakSet<object>();

/**
 * Freeze plain objects and arrays, all the way down. Class instances (streams, signals, clients)
 * are left alone: freezing them would break them, and they are not data.
 *
 * Structural and cheap to repeat: a value it froze before is recognised in one lookup and not
 * walked again (each run hands the same input and output to many hooks). A node someone else
 * froze is still walked, since `Object.freeze` is shallow and its children may not be; it is
 * walked once even when it is reachable twice or in a cycle. Iterative, not recursive: a
 * 10 000-deep input must not overflow the stack (I2).
 *
 * @example
 * Object.isFrozen(deepFreeze({ a: [1] }).a) // true
 */
export const deepFreeze = <T>(value: T): T => {
  if (typeof value !== "object" || value === null || frozenDeep.has(value)) return value;
  // Only objects are queued: most of a tool result's fields are strings and numbers.
  const pending: object[] = [value];
  /** Nodes found already frozen and walked, made only when there are any. */
  let walked: Set<object> | undefined;
  while (pending.length > 0) {
    const node = pending.pop() as Record<string, unknown>;
    const array = Array.isArray(node);
    if (!array) {
      const proto: unknown = Object.getPrototypeOf(node);
      if (proto !== Object.prototype && proto !== null) continue; // a class instance: not data
    }
    if (Object.isFrozen(node)) {
      if (frozenDeep.has(node)) continue;
      if (walked === undefined) walked = new Set();
      else if (walked.has(node)) continue;
      walked.add(node);
    } else Object.freeze(node);
    if (array) {
      // Object.keys, not an index loop: an array may also hold named properties.
      for (const key of Object.keys(node)) {
        const child = node[key];
        if (typeof child === "object" && child !== null) pending.push(child);
      }
    } else {
      // for-in rather than Object.keys: no array of keys per object. The prototype is
      // Object.prototype or null, so it enumerates the object's own keys (and, on a polluted
      // Object.prototype, the polluting ones, whose values then get frozen too: nothing is missed).
      for (const key in node) {
        const child = node[key];
        if (typeof child === "object" && child !== null) pending.push(child);
      }
    }
  }
  frozenDeep.add(value);
  return value;
};
