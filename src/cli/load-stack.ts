/**
 * Loading the stack a team wrote, from a module: its `default` export or a named one, either a
 * stack or a function that builds one (and may take the bridge's approval recorder, so `ask`
 * decisions can be answered as Claude Code's "ask").
 *
 * The module may be JavaScript or TypeScript, in a CommonJS or an ES module project: `.js`,
 * `.mjs`, `.cjs` load with Node alone; `.ts`, `.mts`, `.cts` (and `.tsx`) load through tsx,
 * found beside the module (the project's own), and registered only then, so JavaScript modules
 * never pay for it. A TypeScript module that is CommonJS (`.cts`, or `.ts` in a package without
 * `"type": "module"`) is loaded through tsx's `require`: Node's `require()` of an ES module
 * (agent-onion itself) does not work under the module hooks an `import` of it would need.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { AgentStack } from "../agent/stack.ts";
import type { ApprovalHandler } from "../core/context.ts";

/** What a stack factory receives. */
export interface StackFactoryOptions {
  /** Records approval requests; the bridge answers Claude Code with "ask". */
  readonly approval: ApprovalHandler;
}

const isStack = (value: unknown): value is AgentStack =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as AgentStack).run === "function" &&
  typeof (value as AgentStack).explain === "function";

const typeScript = /\.[cm]?tsx?$/;

/** The `type` of the package.json that governs `dir`, as Node reads it: the nearest one. */
const packageType = (dir: string): string => {
  for (let at = dir; ; at = dirname(at)) {
    const file = join(at, "package.json");
    if (existsSync(file)) {
      try {
        return (JSON.parse(readFileSync(file, "utf8")) as { type?: unknown }).type === "module" ? "module" : "commonjs";
      } catch {
        return "commonjs";
      }
    }
    if (dirname(at) === at) return "commonjs";
  }
};

/** A `require` that can resolve tsx: the module's project first, then the working directory's, then ours. */
const tsxRequire = (path: string, cwd: string): NodeJS.Require | undefined => {
  for (const from of [path, join(cwd, "noop.js"), import.meta.url]) {
    const require = createRequire(from);
    try {
      require.resolve("tsx");
      return require;
    } catch {
      // not installed there
    }
  }
  return undefined;
};

const noTsx = (path: string): Error =>
  new Error(
    `cannot load ${path}: a TypeScript module needs tsx, and none was found beside it (install it in the project: npm i -D tsx; or compile the module to .js)`,
  );

/**
 * Whether this is the built CLI (dist/), which the command loads with `require()`: a JavaScript
 * module is then loaded the same way. From the sources (through tsx, or in tests), tsx would
 * compile a required ES module into a second, CommonJS copy of it and of what it imports.
 */
const built = import.meta.url.endsWith(".js");

/**
 * A JavaScript module, read synchronously with `require()` (an ES module too, on the Node
 * versions the engines allow): `import()` would set up Node's asynchronous module loader, a few
 * ms per event. What `require()` refuses to load (an ES module with top-level await) is imported.
 */
const requireModule = async (path: string): Promise<Record<string, unknown>> => {
  let loaded: unknown;
  try {
    loaded = createRequire(path)(path);
  } catch (error) {
    // Only what the loader refuses before running anything (ERR_REQUIRE_ASYNC_MODULE for
    // top-level await) is imported instead: a module that threw while running must not run twice.
    if (!String((error as { code?: unknown } | null)?.code).startsWith("ERR_REQUIRE_")) throw error;
    return (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  }
  const namespace =
    typeof loaded === "object" && loaded !== null && (loaded as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag] === "Module";
  return namespace ? (loaded as Record<string, unknown>) : { default: loaded };
};

/** The module's namespace: an ES module's, or a CommonJS module's `module.exports` as its `default`. */
const importModule = async (path: string, cwd: string): Promise<Record<string, unknown>> => {
  if (!typeScript.test(path)) return built ? requireModule(path) : ((await import(pathToFileURL(path).href)) as Record<string, unknown>);
  const commonJs = path.endsWith(".cts") || (/\.tsx?$/.test(path) && packageType(dirname(path)) === "commonjs");
  const require = tsxRequire(path, cwd);
  if (require === undefined) {
    // Node 22.18 and later strip types themselves.
    if ((process.features as { typescript?: unknown }).typescript)
      return (await import(pathToFileURL(path).href)) as Record<string, unknown>;
    throw noTsx(path);
  }
  if (commonJs) {
    const api = require("tsx/cjs/api") as { require: (id: string, from: string) => unknown };
    return { default: api.require(path, path) };
  }
  // tsx's own entry (what `node --import tsx` loads) registers its hooks once per process.
  await import(pathToFileURL(require.resolve("tsx")).href);
  return (await import(pathToFileURL(path).href)) as Record<string, unknown>;
};

/** `name` of a namespace, reading through CommonJS's `module.exports` and compiled `exports.default`. */
const exportOf = (ns: Record<string, unknown>, name: string): unknown => {
  const cjs = ns.default;
  let value =
    ns[name] ?? (typeof cjs === "object" && cjs !== null && name !== "default" ? (cjs as Record<string, unknown>)[name] : undefined);
  if (name === "default" && typeof value === "object" && value !== null && (value as { __esModule?: unknown }).__esModule === true)
    value = (value as { default?: unknown }).default;
  return value;
};

/** The names a namespace exports, reading through CommonJS's `module.exports`. */
const exportNames = (ns: Record<string, unknown>): string[] => {
  const cjs = ns.default;
  const inner = typeof cjs === "object" && cjs !== null && !isStack(cjs) ? Object.keys(cjs).filter((k) => k !== "__esModule") : [];
  const own = Object.keys(ns).filter((k) => k !== "default" || (cjs !== undefined && inner.length === 0));
  return [...new Set([...own, ...inner])];
};

/** What a value that should have been a stack is, in the words of the mistake that made it. */
const notAStack = (value: unknown): string => {
  if (value === null || value === undefined) return String(value);
  if (typeof value !== "object") return `a ${typeof value}`;
  const v = value as Record<string, unknown>;
  if (typeof v.name === "string" && typeof v.hooks === "object" && v.hooks !== null)
    return `a middleware ("${v.name}"): export withMiddleware(createAgentStack(), it)`;
  if (["before", "after", "around", "recover", "onSettled", "observe"].some((phase) => typeof v[phase] === "function"))
    return `a hook${typeof v.name === "string" ? ` ("${v.name}")` : ""}: export createAgentStack().use(point, it)`;
  return Array.isArray(value) ? "a list" : "an object";
};

/**
 * Import `file` (relative to `cwd`) and return its stack.
 *
 * @example
 * const stack = await loadStack("hooks/guard.ts", process.cwd(), "default", { approval })
 */
export const loadStack = async (file: string, cwd: string, exportName: string, factory: StackFactoryOptions): Promise<AgentStack> => {
  const path = resolve(cwd, file);
  let ns: Record<string, unknown>;
  try {
    ns = await importModule(path, cwd);
  } catch (error) {
    const hint =
      (error as { code?: unknown })?.code === "ERR_UNKNOWN_FILE_EXTENSION" && typeScript.test(file)
        ? " (to load a TypeScript module, install tsx in the project: npm i -D tsx; or compile it to .js)"
        : "";
    const message =
      error instanceof Error && error.message.startsWith(`cannot load ${path}`)
        ? error.message
        : `cannot load ${file}: ${(error as Error)?.message ?? String(error)}${hint}`;
    throw new Error(message, { cause: error });
  }
  const exported = exportOf(ns, exportName) ?? (exportName === "default" ? exportOf(ns, "stack") : undefined);
  if (exported === undefined) {
    const names = exportNames(ns);
    const hint = names.length === 0 ? "it exports nothing" : `its exports: ${names.join(", ")}; name one with --export <name>`;
    throw new Error(`${file} has no export "${exportName}" (${hint}; or export default a stack, or a function returning one)`);
  }
  let value: unknown = exported;
  if (typeof exported === "function" || typeof (exported as PromiseLike<unknown>).then === "function") {
    try {
      // A promise is what `export default makeStack()` gives when makeStack is async.
      value = await (typeof exported === "function" ? (exported as (o: StackFactoryOptions) => unknown)(factory) : exported);
    } catch (error) {
      throw new Error(`${file}: export "${exportName}" failed to make the stack: ${(error as Error)?.message ?? String(error)}`, {
        cause: error,
      });
    }
  }
  if (!isStack(value))
    throw new Error(
      `${file}: export "${exportName}"${typeof exported === "function" ? " returned" : " is"} ${notAStack(value)}, not a hook stack (expected createAgentStack()...)`,
    );
  return value;
};
