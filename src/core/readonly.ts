/**
 * Deep read-only views (R9). Hooks receive inputs and outputs through these types; in strict
 * mode they are also frozen at run time, so a hook can never change what another hook saw.
 */

type Primitive = string | number | boolean | bigint | symbol | undefined | null;

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

const plain = (value: object): boolean => {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null || Array.isArray(value);
};

/**
 * Freeze plain objects and arrays, recursively. Class instances (streams, signals, clients)
 * are left alone: freezing them would break them, and they are not data.
 *
 * @example
 * Object.isFrozen(deepFreeze({ a: [1] }).a) // true
 */
export const deepFreeze = <T>(value: T): T => {
  // Iterative, not recursive: a 10 000-deep input must not overflow the stack (I2).
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next !== "object" || next === null || Object.isFrozen(next) || !plain(next)) continue;
    Object.freeze(next);
    for (const key of Object.keys(next)) pending.push((next as Record<string, unknown>)[key]);
  }
  return value;
};
