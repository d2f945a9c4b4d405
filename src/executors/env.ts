/**
 * Environments of hook processes (D10, E7): an allowlist of our variables, or all of them as
 * Claude Code gives its hooks; an HTTP header may only interpolate variables named for it.
 */
import { brandError } from "../core/errors.ts";

/**
 * Variables a hook script needs to behave like it does in a shell, and nothing secret.
 *
 * @example
 * childEnv({ allowedEnvVars: [...DEFAULT_ENV_ALLOWLIST, "CI"], replaceDefaults: true })
 */
export const DEFAULT_ENV_ALLOWLIST: readonly string[] = Object.freeze([
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "LC_ALL",
  "LC_CTYPE",
  "TZ",
  "TMPDIR",
  "TERM",
]);

/** Options of `childEnv`: which variables a hook's process gets. */
export interface ChildEnvOptions {
  /** Names copied from `source` in addition to the defaults. */
  readonly allowedEnvVars?: readonly string[] | undefined;
  /** Replace the default list instead of adding to it. */
  readonly replaceDefaults?: boolean | undefined;
  /** Values set explicitly (they win over copied ones). */
  readonly env?: Readonly<Record<string, string>> | undefined;
  readonly source?: Readonly<Record<string, string | undefined>> | undefined;
}

/**
 * Build a child's complete environment from an allowlist.
 *
 * @example
 * childEnv({ allowedEnvVars: ["CI"], env: { CLAUDE_PROJECT_DIR: "/repo" } })
 * // { PATH: "...", HOME: "...", CI: "true", CLAUDE_PROJECT_DIR: "/repo" } — no AWS_SECRET_ACCESS_KEY
 */
export const childEnv = (options: ChildEnvOptions = {}): Record<string, string> => {
  const source = options.source ?? process.env;
  const names = [...(options.replaceDefaults ? [] : DEFAULT_ENV_ALLOWLIST), ...(options.allowedEnvVars ?? [])];
  const env: Record<string, string> = Object.create(null);
  for (const name of names) {
    const value = source[name];
    if (typeof value === "string") env[name] = value;
  }
  for (const [name, value] of Object.entries(options.env ?? {})) env[name] = value;
  return env;
};

/**
 * The whole environment of this process, as Claude Code hands its own to hooks, without the
 * OpenTelemetry exporter settings (`OTEL_*`), which Claude Code removes from every child.
 *
 * @example
 * inheritedEnv().OTEL_EXPORTER_OTLP_ENDPOINT // undefined
 */
export const inheritedEnv = (source: Readonly<Record<string, string | undefined>> = process.env): Record<string, string> => {
  const env: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(source)) if (typeof value === "string" && !name.startsWith("OTEL_")) env[name] = value;
  return env;
};

/**
 * Thrown for a header that cannot be sent safely.
 *
 * @example
 * checkHeader("X-A", "a\r\nb") // throws HeaderError
 */
export class HeaderError extends TypeError {
  override name = "HeaderError";
}
brandError(HeaderError);

const token = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const forbidden = /[\r\n\0]/;
// What else node:http refuses in a value: other control characters, and anything past Latin-1.
const control = /[\u0001-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const wide = /[^\u0000-\u00ff]/;

/**
 * Check a header name and value: a valid token, no CR, LF or NUL anywhere (E7), and nothing else
 * HTTP cannot carry (other control characters, characters outside Latin-1), naming the header.
 *
 * @example
 * checkHeader("X-Id", "a\r\nInjected: 1") // throws HeaderError
 */
export const checkHeader = (name: string, value: string): void => {
  if (!token.test(name)) throw new HeaderError(`header name ${JSON.stringify(name)} is not a valid token`);
  if (forbidden.test(value)) throw new HeaderError(`header ${name} contains CR, LF or NUL; refused`);
  if (control.test(value)) throw new HeaderError(`header ${name} contains a control character; refused`);
  if (wide.test(value)) throw new HeaderError(`header ${name} contains a character outside Latin-1, which HTTP cannot carry; refused`);
};

/**
 * Expand `$VAR` and `${VAR}` in a header value with variables from `allowed` only; any other
 * reference becomes the empty string, as in Claude Code. The result is checked for CR/LF.
 *
 * @example
 * interpolateHeader("Authorization", "Bearer $TOKEN", ["TOKEN"], { TOKEN: "t", SECRET: "s" }) // "Bearer t"
 */
export const interpolateHeader = (
  name: string,
  value: string,
  allowed: readonly string[],
  source: Readonly<Record<string, string | undefined>> = process.env,
): string => {
  const ok = new Set(allowed);
  const expanded = value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_m, braced?: string, bare?: string) => {
    const key = (braced ?? bare)!;
    return ok.has(key) ? (source[key] ?? "") : "";
  });
  checkHeader(name, expanded);
  return expanded;
};
