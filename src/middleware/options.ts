/**
 * Option checks shared by the built-in middleware. Each factory checks its options when it is
 * called, so a mistake is a `TypeError` naming the middleware and the field at start-up, not a
 * surprise on the first call in production.
 */
import { show } from "../core/known-options.ts";

/** The generic checks, which live with the agent so that every layer above it can use them. */
export { knownOptions, show } from "../core/known-options.ts";

/**
 * Refuse anything but a safe integer in `[min, max]` (budgets and limits are integers: H5).
 *
 * @example
 * integerOption("budget", "limit", 1.5) // throws TypeError: budget: limit must be an integer >= 0, got 1.5
 */
export const integerOption = (middleware: string, field: string, value: unknown, min = 0, max = Number.MAX_SAFE_INTEGER): number => {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min || value > max)
    throw new TypeError(
      `${middleware}: ${field} must be an integer >= ${min}${max < Number.MAX_SAFE_INTEGER ? ` and <= ${max}` : ""}, got ${show(value)}`,
    );
  return value;
};

/**
 * Refuse anything but a finite number in `[min, max]` (durations, jitter ratios).
 *
 * @example
 * numberOption("timeLimit", "maxExecutionTime", NaN, 0) // throws TypeError
 */
export const numberOption = (middleware: string, field: string, value: unknown, min = 0, max = Number.MAX_VALUE): number => {
  if (typeof value !== "number" || !Number.isFinite(value) || value < min || value > max)
    throw new TypeError(
      `${middleware}: ${field} must be a finite number >= ${min}${max < Number.MAX_VALUE ? ` and <= ${max}` : ""}, got ${show(value)}`,
    );
  return value;
};

/**
 * Refuse anything but a function (when given).
 *
 * @example
 * functionOption("retry", "retryOn", undefined) // undefined
 */
export const functionOption = <F>(middleware: string, field: string, value: F | undefined): F | undefined => {
  if (value !== undefined && typeof value !== "function")
    throw new TypeError(`${middleware}: ${field} must be a function, got ${show(value)}`);
  return value;
};

/**
 * Refuse anything but one of `choices` (when given).
 *
 * @example
 * choiceOption("rateLimit", "algorithm", "sliding", ["fixed", "sliding"]) // "sliding"
 */
export const choiceOption = <C extends string>(middleware: string, field: string, value: unknown, choices: readonly C[]): C => {
  if (typeof value !== "string" || !(choices as readonly string[]).includes(value))
    throw new TypeError(`${middleware}: ${field} must be one of ${choices.map((c) => `"${c}"`).join(", ")}, got ${show(value)}`);
  return value as C;
};

/**
 * Refuse anything but a non-empty string, spaces alone counting as empty, as `nameOption` does
 * (when given): a field name or key part given as an object would otherwise read
 * `metadata["[object Object]"]` on every call.
 *
 * @example
 * stringOption("budget", "tenantKey", {}) // throws TypeError: budget: tenantKey must be a non-empty string, got [object Object]
 */
export const stringOption = (middleware: string, field: string, value: unknown): string | undefined => {
  if (value !== undefined && (typeof value !== "string" || value.trim() === ""))
    throw new TypeError(`${middleware}: ${field} must be a non-empty string, got ${show(value)}`);
  return value;
};

/**
 * Refuse anything but a list of non-empty strings (when given); a lone string is refused, since
 * iterating it would read its characters as the list.
 *
 * @example
 * stringListOption("audit", "metadata", "tenant") // throws TypeError: audit: metadata must be a list of strings, got "tenant"
 */
export const stringListOption = (middleware: string, field: string, value: unknown): readonly string[] | undefined => {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw new TypeError(`${middleware}: ${field} must be a list of strings, got ${show(value)}`);
  value.forEach((item, i) => stringOption(middleware, `${field}[${i}]`, item ?? null));
  return value as string[];
};

/**
 * Refuse a name that is not a non-empty string (hook names key the stack and the store).
 *
 * @example
 * nameOption("retry", undefined) // "retry"
 */
export const nameOption = (fallback: string, value: unknown): string => {
  if (value === undefined) return fallback;
  if (typeof value !== "string" || value.trim() === "")
    throw new TypeError(`${fallback}: name must be a non-empty string, got ${show(value)}`);
  return value;
};
