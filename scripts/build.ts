/**
 * Build the package into dist/: declarations from tsc (one .d.ts per source file), JavaScript
 * from rolldown, one file per entry point of package.json's `exports` plus the CLI, and the code
 * in dist/chunks/, one chunk per area (core, agent, middleware, claude, otel, ...).
 *
 * Why a bundler for the JavaScript: Node loads an ES module file at a time, and compiles what it
 * loads; about 120 small files made `import "agent-onion"` cost half again what the same code
 * costs in a few files. Why chunks by area rather than a bundle per entry: every entry must share
 * one copy of the engine (`Continue` from `agent-onion/core` is `Continue` from `agent-onion`, and
 * a stack built by a hook module must be one the CLI runs), and an entry should load its area and
 * the areas below it, no more: `agent-onion/core` loads the core chunk alone. Why areas rather than
 * a bundler's automatic splitting: that cut the root into 28 files, one per combination of entries
 * sharing a module. The Claude Code code is cut in two: what `claude-hook` runs (the bridge, which
 * must start fast) and the settings loader (which loads Effect).
 *
 * Every shared or lazily loaded file keeps its exports in a process-wide registry on its first
 * evaluation (`oneInstance`), so a loader that evaluates it again still leaves one engine.
 *
 * After the build it checks, on the files written, that the root and claude-hook load no package
 * at start-up (dependencies such as picomatch load on first use: claude-hook starts once per tool
 * call, and the root is what its hook modules import), and that `agent-onion/core` loads neither
 * Effect nor an optional peer.
 *
 *   npx tsx scripts/build.ts [--out <dir>] [--no-types]
 *
 * `--out` writes somewhere else than dist/ (a test building its own copy); `--no-types` skips the
 * declarations.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { rolldown, type ModuleInfo } from "rolldown";

const root = fileURLToPath(new URL("..", import.meta.url));

interface PackageJson {
  readonly exports: Record<string, string | { readonly types?: string; readonly default?: string }>;
}

/**
 * The entry points: `dist/<name>.js` is built from `src/<name>.ts`, for every JavaScript target of
 * package.json's `exports`, and the CLI.
 *
 * @example
 * entryPoints({ exports: { "./core": { default: "./dist/core/index.js" } } }) // { "core/index": "src/core/index.ts", "cli/run": "src/cli/run.ts" }
 */
export const entryPoints = (pkg: PackageJson): Record<string, string> => {
  const entries: Record<string, string> = {};
  for (const target of Object.values(pkg.exports)) {
    if (typeof target !== "object" || target.default === undefined) continue;
    const match = /^\.\/dist\/(.+)\.js$/.exec(target.default);
    if (!match) throw new Error(`exports target ${target.default} is not ./dist/<path>.js`);
    entries[match[1]!] = `src/${match[1]}.ts`;
  }
  return { ...entries, "cli/run": "src/cli/run.ts" };
};

/** The sources `claude-hook` and serve's hook process load before answering: static imports only. */
const hookEntries = ["src/cli/run.ts", "src/cli/claude-hook.ts", "src/cli/hook-process-command.ts"];

/**
 * The chunk a source file belongs to, by area; `hookPath` is the set of files claude-hook loads.
 *
 * @example
 * chunkOf("src/middleware/metrics.ts", false) // "otel"
 */
export const chunkOf = (
  file: string,
  onHookPath: boolean,
  onRootPath = false,
  loadedLazily = false,
  onCorePath = true,
  onAgentPath = true,
): string | undefined => {
  // What `agent-onion/core` does not load at start-up (shell analysis, path rules, linear-time
  // regular expressions): loaded on first use, by whichever needs it first.
  if (file.startsWith("src/core/")) {
    if (onCorePath) return "core";
    // Each in its own file, so that asking for approval does not load the shell analysis, nor a
    // search tool's detail the approvals.
    if (/^src\/core\/approval-/.test(file)) return "core-approvals";
    if (/^src\/core\/match\/(composite|metadata|step-type)\.ts$/.test(file)) return "core-matchers";
    if (/^src\/core\/match\/(search|glob)\.ts$/.test(file)) return "core-search";
    return "core-lazy";
  }
  // What an agent stack answering a tool call does not load at start-up (the agent loop, its
  // sessions, streams and transcripts): loaded with the first function that needs it.
  if (file.startsWith("src/agent/")) return onAgentPath ? "agent" : "agent-lazy";
  // What the root entry loads of the middleware and the adapters: the classes and constants it
  // exports as they are. Their functions load on first call, each from its own file.
  if (onRootPath && /^src\/(middleware|adapters)\//.test(file)) return "root-values";
  // Each middleware of the root loads alone; the subpath entry, which loads them all, stays an
  // entry rather than taking them into the shared middleware chunk.
  // (A chunk of its own rather than none: a group takes what its files import, and the otel chunk
  // would take the middleware its files share with the root, which would then load
  // @opentelemetry/api.)
  if (loadedLazily && file.startsWith("src/middleware/")) return `middleware-${file.slice("src/middleware/".length, -".ts".length)}`;
  // What only the detectors use goes with them, not into the helpers every middleware loads.
  if (/^src\/middleware\/(secret-rules|secret-detectors|token-runs|char-windows|visible-text)\.ts$/.test(file))
    return "middleware-detectors";
  if (file === "src/middleware/index.ts") return undefined;
  // Shared by the AI SDK, LangChain and OpenAI Agents adapters, and built on the agent layer they all load.
  if (file === "src/adapters/call-context.ts") return "agent";
  // metrics and tracing (with its AI SDK tracer) import @opentelemetry/api, an optional peer:
  // never in the middleware chunk.
  if (/^src\/middleware\/(metrics|tracing|tracing-ai-sdk)\.ts$/.test(file)) return "otel";
  if (file.startsWith("src/middleware/")) return "middleware";
  // What the bridge loads on first use (running a command hook, combining answers) is apart from the
  // claude entry's chunk, which would load the settings executors with it.
  if (file.startsWith("src/executors/")) return onHookPath ? "claude-bridge" : loadedLazily ? "claude-bridge-lazy" : "claude";
  if (file.startsWith("src/adapters/ai-sdk")) return "ai-sdk";
  if (file.startsWith("src/adapters/mcp")) return "mcp";
  if (file.startsWith("src/adapters/koa")) return "koa";
  if (file.startsWith("src/adapters/openai-agents")) return "openai-agents";
  if (file.startsWith("src/adapters/langchain")) return "langchain";
  if (file.startsWith("src/adapters/claude-agent-sdk/")) return "claude-agent-sdk";
  if (file.startsWith("src/adapters/effect")) return "effect";
  if (file.startsWith("src/stores/")) return "redis";
  if (file.startsWith("src/cli/")) return onHookPath ? "cli" : /serve/.test(file) ? "cli-serve" : "cli-settings";
  return undefined;
};

/** In layer order: a module goes to the first (lowest) area that claims it. */
const chunks = [
  "core",
  "agent",
  "claude-bridge",
  "root-values",
  "core-approvals",
  "core-matchers",
  "core-search",
  "core-lazy",
  "agent-lazy",
  "middleware",
  "claude-bridge-lazy",
  "claude",
  "otel",
  "ai-sdk",
  "mcp",
  "koa",
  "effect",
  "langchain",
  "openai-agents",
  "claude-agent-sdk",
  "redis",
  "cli",
  "cli-serve",
  "cli-settings",
];

/**
 * Node built-ins the built files load on first use rather than at start-up: what claude-hook and a
 * hook module importing the root never need to answer an ordinary event (a hash, a socket, a
 * child process), but costs a few ms to load.
 */
const lazyBuiltins = new Set(["node:crypto", "node:net", "node:tty", "node:dns/promises", "node:child_process", "node:http", "node:https"]);

/**
 * Built-in imports as `process.getBuiltinModule` look-ups. An ES module import of a built-in goes
 * through the ES module loader and builds a facade of the module that reads every export (for
 * `node:fs`, that loads Node's streams); the look-up takes the module Node has already loaded.
 * Named imports from `lazyBuiltins` become functions that load the module on their first call.
 *
 * @example
 * builtinsAsLookups('import { join } from "node:path";') // 'const { join } = process.getBuiltinModule("node:path");'
 */
export const builtinsAsLookups = (code: string): string => {
  let out = code.replace(/^import\s*\{([^}]*)\}\s*from\s*"(node:[^"]+)";?$/gm, (_, names: string, spec: string) => {
    const pairs = names
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "")
      .map((s) => {
        const [imported, local] = s.split(/\s+as\s+/);
        return [imported!, local ?? imported!] as const;
      });
    // A class can be constructed through the stand-in, but `instanceof` and its statics would not see it.
    const aClass = lazyBuiltins.has(spec) ? pairs.find(([i]) => /^[A-Z]/.test(i)) : undefined;
    if (aClass) throw new Error(`${aClass[0]} from ${spec} is loaded on first use, so it must be a function, not a class`);
    if (!lazyBuiltins.has(spec))
      return `const { ${pairs.map(([i, l]) => (i === l ? i : `${i}: ${l}`)).join(", ")} } = process.getBuiltinModule(${JSON.stringify(spec)});`;
    return pairs
      .map(
        ([i, l]) =>
          `function ${l}(...args) {\n\tconst f = process.getBuiltinModule(${JSON.stringify(spec)}).${i};\n\treturn new.target ? new f(...args) : f(...args);\n}`,
      )
      .join("\n");
  });
  out = out.replace(
    /^import\s+(?:\*\s+as\s+)?([\w$]+)\s+from\s*"(node:[^"]+)";?$/gm,
    (_, local: string, spec: string) => `const ${local} = process.getBuiltinModule(${JSON.stringify(spec)});`,
  );
  const left = /^(?:import|export)\b[^;]*"node:[^"]+";?$/m.exec(out);
  if (left) throw new Error(`a built-in import the build cannot turn into a look-up: ${left[0]}`);
  return out;
};

/** Where an entry's lazy stand-ins find the files they load: `dist/lazy/<source path>.js`. */
const lazyDir = "lazy";

/** A named value export of a source file: `export { a, b as c } from "./x.ts"` (types left out). */
interface ReExport {
  readonly name: string;
  readonly from: string;
  /** The name in `from`, when it is exported under another one. */
  readonly imported?: string;
}

/**
 * The value exports an entry file re-exports by name, following `export * from` into the files
 * listed in `expand` (the others are kept as `export *`).
 *
 * @example
 * reExportsOf("src/index.ts", ["src/middleware/index.ts"]) // { named: [{ name: "retry", from: "src/middleware/retry.ts" }, ...], stars: ["src/core/index.ts", ...] }
 */
export const reExportsOf = (file: string, expand: readonly string[]): { named: ReExport[]; stars: string[] } => {
  const text = readFileSync(join(root, file), "utf8").replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, "");
  const named: ReExport[] = [];
  const stars: string[] = [];
  const at = (spec: string): string => join(dirname(file), spec).replace(/\\/g, "/");
  for (const [, star, onlyTypes, names, spec] of text.matchAll(/^export\s+(?:(\*)|(type\s+)?\{([^}]*)\})\s*from\s*"([^"]+)";?$/gm)) {
    const from = at(spec!);
    if (star !== undefined) {
      if (expand.includes(from)) named.push(...reExportsOf(from, expand).named);
      else stars.push(from);
      continue;
    }
    if (onlyTypes !== undefined) continue;
    for (const part of names!.split(",").map((n) => n.trim())) {
      if (part === "" || part.startsWith("type ")) continue;
      const [imported, name] = part.split(/\s+as\s+/);
      named.push(name === undefined ? { name: part, from } : { name, from, imported: imported! });
    }
  }
  return { named, stars };
};

/**
 * Where a lazily loaded source file is required from, in the code before it is written: the
 * build replaces it with the path of `dist/lazy/<file>.js` relative to the file written.
 */
const lazyPath = (file: string): string => `"agent-onion-lazy:${file}"`;

/** `lazyPath` placeholders in a written file as paths relative to it (`fileName`, in dist/). */
export const resolveLazyPaths = (code: string, fileName: string): string =>
  code.replace(/"agent-onion-lazy:src\/([^"]+)\.ts"/g, (_, path: string) => {
    const r = relative(dirname(fileName), `${lazyDir}/${path}.js`).replace(/\\/g, "/");
    return JSON.stringify(r.startsWith(".") ? r : `./${r}`);
  });

/** The statements that load `file` synchronously on first use, once: `<load>()` returns its namespace. */
const loader = (load: string, file: string): string =>
  `let ${load}Module;\nconst ${load} = () => (${load}Module ??= process.getBuiltinModule("node:module").createRequire(import.meta.url)(${lazyPath(file)}));`;

/** A function named `name` that calls `imported` of the module `load()` returns. */
const standIn = (name: string, load: string, length?: number, imported = name): string =>
  `function ${name}(...args) {\n\treturn ${load}().${imported}.apply(this, args);\n}` +
  (length === undefined ? "" : `\nObject.defineProperty(${name}, "length", { value: ${length} });`);

/** A plain function (not a class, no properties of its own): a stand-in that loads it on first call behaves the same. */
const standsIn = (value: unknown): boolean =>
  typeof value === "function" &&
  !/^class\b/.test(Function.prototype.toString.call(value)) &&
  Object.getOwnPropertyNames(value).every((n) => ["length", "name", "prototype", "arguments", "caller"].includes(n));

/**
 * Exports of the root that are objects of built-in values rather than functions, yet load too
 * much to be read at start-up: the root exports an object whose properties read the real
 * module's on first access. Each property is the same value as from `agent-onion/middleware`;
 * the object holding them is not the same object.
 */
const lazyObjects = new Set(["Detectors"]);

/**
 * The JavaScript of an entry whose function exports load their file on their first call:
 * synchronously, with `require()` of the built ES module (Node 20.19 and 22.12 on, which the
 * package's engines ask for), which gives the module `import` would, so there is one copy of
 * every module and its state (and `oneInstance` keeps it so under a loader that compiles what
 * `require()` loads). Only functions can stand in for each other: classes (`instanceof`,
 * `extends`, statics) and other values are imported as they are, from their own file (but
 * `lazyObjects`).
 *
 * `values` is each export's value, read from the sources (the build runs them with tsx).
 */
export const lazyEntrySource = (
  entry: { named: readonly ReExport[]; stars: readonly string[] },
  values: ReadonlyMap<string, unknown>,
  entryDir: string,
  lazyFrom?: ReadonlySet<string>,
): { code: string; lazyFiles: Set<string> } => {
  const relTo = (file: string): string => {
    const r = relative(entryDir, file).replace(/\\/g, "/");
    return r.startsWith(".") ? r : `./${r}`;
  };
  const lines = entry.stars.map((s) => `export * from ${JSON.stringify(relTo(s))};`);
  const eager: ReExport[] = [];
  const lazy: ReExport[] = [];
  for (const e of entry.named)
    ((lazyFrom === undefined || lazyFrom.has(e.from)) && (standsIn(values.get(e.name)) || lazyObjects.has(e.name)) ? lazy : eager).push(e);
  const byFile = new Map<string, string[]>();
  for (const e of eager)
    byFile.set(e.from, [...(byFile.get(e.from) ?? []), e.imported === undefined ? e.name : `${e.imported} as ${e.name}`]);
  for (const [from, names] of byFile) lines.push(`export { ${names.join(", ")} } from ${JSON.stringify(relTo(from))};`);
  const lazyFiles = new Set(lazy.map((e) => e.from));
  const loaders = new Map([...lazyFiles].map((f, i) => [f, `load${i}`]));
  for (const [file, load] of loaders) lines.push(loader(load, file));
  for (const e of lazy) {
    const load = loaders.get(e.from)!;
    const value = values.get(e.name) as Record<string, unknown>;
    if (lazyObjects.has(e.name))
      lines.push(
        `export const ${e.name} = Object.defineProperties({}, {\n${Object.keys(value)
          .map((k) => `\t${JSON.stringify(k)}: { enumerable: true, get: () => ${load}().${e.imported ?? e.name}[${JSON.stringify(k)}] },`)
          .join("\n")}\n});`,
      );
    else lines.push(`export ${standIn(e.name, load, (value as unknown as (...args: unknown[]) => unknown).length, e.imported)}`);
  }
  return { code: `${lines.join("\n")}\n`, lazyFiles };
};

/**
 * The entries whose function exports load their file on first call (see lazyEntrySource): the
 * root, for every file (the `export *` of `expand` followed into their files); the engine and the
 * agent layer, for the files listed, which an answered tool call does not use. Their classes and
 * constants (errors, `TranscriptWriter`) stay as they are, and with them the files defining them.
 */
const lazyEntries: Record<string, { readonly expand?: readonly string[]; readonly lazyFrom?: readonly string[] }> = {
  "src/index.ts": { expand: ["src/middleware/index.ts"] },
  // Approval answers and tokens: for a hook that asks for approval, and durable approvals.
  "src/core/index.ts": { lazyFrom: ["src/core/approval-answer.ts", "src/core/approval-token.ts"] },
  "src/agent/index.ts": {
    lazyFrom: [
      "src/agent/agent.ts",
      "src/agent/compaction.ts",
      "src/agent/permissions.ts",
      "src/agent/tokens.ts",
      "src/agent/scripted-model.ts",
      "src/agent/wrap-model.ts",
      "src/agent/stream/hooks.ts",
      "src/agent/stream/through-stack.ts",
      "src/agent/stream/readable.ts",
    ],
  },
};

/**
 * Imports of a few files that the build makes lazy: the file is needed at start-up (it defines
 * a class the root exports), but what it imports only when its methods run. Only functions may
 * be imported there this way.
 */
const lazyImports: Record<string, readonly string[]> = {
  // Shell analysis (with its wrapper table and replacement readers) and path rules load with the
  // first matcher or tool rule that needs them: not for a plain tool name.
  "src/core/match/condition.ts": ["./path-rule.ts", "./shell.ts", "./shell/parser.ts"],
  // Composite, metadata and step-type matchers: with the first hook that matches that way.
  "src/core/match/matcher.ts": ["./path-rule.ts", "./linear-regexp.ts", "./composite.ts", "./metadata.ts", "./step-type.ts"],
  "src/middleware/tool-rules.ts": ["../core/match/path-rule.ts", "../core/match/shell.ts"],
  // StreamRedactor: the detectors and their secret rules load when a stream is first redacted.
  "src/middleware/stream-redactor.ts": ["./detectors.ts"],
  // Asking for approval: when a hook asks.
  "src/core/run.ts": ["./approval-ask.ts"],
  "src/core/dispatch.ts": ["./approval-ask.ts"],
  // Durable approvals' tokens and answers: when an approval is first signed or read.
  "src/core/interrupt.ts": ["./approval-answer.ts", "./approval-token.ts"],
  "src/agent/permission.ts": ["../core/approval-answer.ts"],
  // The agent an agent hook runs: when one does.
  "src/executors/agent-hook.ts": ["../agent/agent.ts"],
  // A search tool's detail as a glob: when a hook first reads one.
  "src/agent/points.ts": ["../core/match/search.ts"],
  // Running an external hook (a command, its session files), reading and combining its answers, and
  // a tool's output for Claude Code: when the first one runs or answers.
  "src/executors/external.ts": ["./combine.ts", "./session-files.ts", "./protocol.ts"],
  "src/executors/bridge.ts": ["./bridge-output.ts"],
  // Permission rules (and the tool rules they compile to): when an agent is given some.
  "src/agent/permissions.ts": ["../middleware/tool-rules.ts"],
  // A session is opened by createAgent, but the root exports its error class: the loop, its
  // configuration and compaction load with the first session.
  "src/agent/session.ts": ["./compaction.ts", "./config.ts", "./loop.ts"],
};

/**
 * `code` of `file` with the named imports of `specs` as functions that load their module on
 * first call (see lazyEntrySource). Returns the files loaded that way too.
 *
 * @example
 * lazyImportsOf('import { scan, type Detection } from "./detectors.ts";', "src/middleware/stream-redactor.ts", ["./detectors.ts"])
 */
export const lazyImportsOf = (
  code: string,
  file: string,
  specs: readonly string[],
): { code: string; lazyFiles: string[]; names: ReExport[] } => {
  const lazyFiles: string[] = [];
  const imported: ReExport[] = [];
  let out = code;
  specs.forEach((spec, i) => {
    const from = join(dirname(file), spec).replace(/\\/g, "/");
    const re = new RegExp(`^import\\s*\\{([^}]*)\\}\\s*from\\s*"${spec.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}";?$`, "m");
    const match = re.exec(out);
    if (!match) throw new Error(`${file} has no import { ... } from "${spec}" to make lazy`);
    const names = match[1]!
      .split(",")
      .map((n) => n.trim())
      .filter((n) => n !== "");
    const types = names.filter((n) => n.startsWith("type "));
    const values = names.filter((n) => !n.startsWith("type "));
    const load = `lazyImport${i}`;
    imported.push(...values.map((name) => ({ name, from })));
    out = out.replace(
      match[0],
      [
        // `import { type T }` would keep the import for its side effects: `import type` does not.
        ...(types.length > 0 ? [`import type { ${types.map((t) => t.slice("type ".length)).join(", ")} } from "${spec}";`] : []),
        loader(load, from),
        ...values.map((name) => {
          if (/\s+as\s+/.test(name)) throw new Error(`${file}: a renamed import (${name}) the build does not make lazy`);
          return standIn(name, load);
        }),
      ].join("\n"),
    );
    lazyFiles.push(from);
  });
  return { code: out, lazyFiles, names: imported };
};

/** Where every built module's exports are kept, by `oneInstance`'s key, for the life of the process. */
const instances = 'globalThis[Symbol.for("agent-onion.modules")] ??= new Map()';

/**
 * `code` (a built module: its imports, its body, one `export { ... };` at the end) made to
 * evaluate its body once per process, whatever loads it and however often: the first evaluation
 * keeps its exports under `key`, a later one exports those. Node's `require()` of an ES module
 * gives the module `import` gave, but a loader that compiles what `require()` loads itself (tsx
 * does, for the lazily loaded files) evaluates the file again: without this, a second copy of
 * the engine, with its own classes (`instanceof` fails across them), symbols and caches.
 * `key` must change with the code (a hash of it), so that two different builds never share.
 *
 * Exports must not be reassigned after the body ran (a live binding would go stale): refused.
 *
 * @example
 * oneInstance('import { a } from "./core.js";\nconst b = a + 1;\nexport { b as t };\n', "chunks/x.js#1f")
 */
export const oneInstance = (code: string, key: string): string => {
  const exportAt = code.search(/^export\s*\{[^}]*\};?\s*$/m);
  if (exportAt < 0) throw new Error(`${key}: a built module without one export statement at its end`);
  const exported = code.slice(exportAt);
  if (/^export\b/m.test(code.slice(0, exportAt)) || exported.trim().split("\n").length > 1)
    throw new Error(`${key}: an export before the end, which the build cannot keep as one instance`);
  // Imports are hoisted wherever they stand, so they may all go first, outside the body.
  const isImport = (line: string): boolean => /^import\b[^;]*;\s*$/.test(line);
  const lines = code.slice(0, exportAt).split("\n");
  const body = lines.filter((l) => !isImport(l)).join("\n");
  if (/^(?:import|export)\b/m.test(body)) throw new Error(`${key}: an import the build cannot move out of the body`);
  const pairs = (/\{([^}]*)\}/.exec(exported)![1] ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")
    .map((s) => {
      const [local, name] = s.split(/\s+as\s+/);
      return [local!, name ?? local!] as const;
    });
  // Only a `let` or `var` at the top can be assigned again (rolldown writes classes as `var X = class`).
  for (const [local] of pairs) {
    const name = local.replace(/\$/g, "\\$");
    if (!new RegExp(`^(?:let|var)\\s+${name}\\b`, "m").test(body)) continue;
    const assigned = new RegExp(
      `(?<![\\w$.]|(?:let|var|const)\\s+)${name}\\s*(?:[-+*/%&|^]|\\*\\*|<<|>>>?|\\?\\?|&&|\\|\\|)?=(?![=>])`,
    ).exec(body);
    if (assigned !== null) throw new Error(`${key}: ${local} is exported and assigned again: a live binding`);
  }
  const k = JSON.stringify(key);
  return [
    ...lines.filter(isImport),
    `const __instances = ${instances};`,
    `const __exports = __instances.get(${k}) ?? (() => {`,
    body,
    `const __own = { ${pairs.map(([local, name], i) => `${JSON.stringify(`${i}:${name}`)}: ${local}`).join(", ")} };`,
    `__instances.set(${k}, __own);`,
    "return __own;",
    "})();",
    `const { ${pairs.map(([, name], i) => `${JSON.stringify(`${i}:${name}`)}: __e${i}`).join(", ")} } = __exports;`,
    `export { ${pairs.map(([, name], i) => `__e${i} as ${name}`).join(", ")} };`,
    "",
  ].join("\n");
};

/** A built module that only imports and exports, with no state of its own to keep single. */
const isReExportsOnly = (code: string): boolean =>
  code.split("\n").every((l) => l.trim() === "" || /^(?:import|export)\b[^;]*;\s*$/.test(l));

/** `files` ordered so that each comes after the files (of `files`) it imports, directly or not. */
const importsFirst = (files: readonly string[]): string[] => {
  const order: string[] = [];
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const code = readFileSync(join(root, file), "utf8");
    const lazy = lazyImports[file] ?? [];
    for (const [, spec] of code.matchAll(/^import\s+(?!type\b)[^;]*?from\s*"(\.[^"]+\.ts)";?$/gm))
      if (!lazy.includes(spec!)) visit(join(dirname(file), spec!).replace(/\\/g, "/"));
    if (files.includes(file)) order.push(file);
  };
  for (const f of files) visit(f);
  return order;
};

/** The bare packages a built file loads, following its static imports through dist/. */
const packagesLoadedBy = (file: string, seen = new Set<string>()): Set<string> => {
  const found = new Set<string>();
  if (seen.has(file)) return found;
  seen.add(file);
  const text = readFileSync(file, "utf8");
  for (const [, spec] of text.matchAll(/^(?:import|export)\b[^;"]*?(?:from\s*)?"([^"]+)";?$/gm)) {
    if (spec!.startsWith(".")) for (const p of packagesLoadedBy(join(dirname(file), spec!), seen)) found.add(p);
    else if (!spec!.startsWith("node:")) found.add(spec!.startsWith("@") ? spec!.split("/").slice(0, 2).join("/") : spec!.split("/")[0]!);
  }
  return found;
};

const check = (out: string, entry: string, forbidden: readonly string[] | "any"): void => {
  const loaded = packagesLoadedBy(join(out, entry));
  const wrong = forbidden === "any" ? [...loaded] : forbidden.filter((p) => loaded.has(p));
  if (wrong.length > 0) throw new Error(`dist/${entry} loads ${wrong.join(", ")} at start-up (it loads: ${[...loaded].join(", ")})`);
};

const main = async (): Promise<void> => {
  const args = process.argv.slice(2);
  const outAt = args.indexOf("--out");
  const out = outAt >= 0 && args[outAt + 1] ? resolve(args[outAt + 1]!) : join(root, "dist");
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as PackageJson;
  rmSync(out, { recursive: true, force: true });
  if (!args.includes("--no-types"))
    execFileSync(
      process.execPath,
      [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", join(root, "tsconfig.build.json"), "--outDir", out],
      { stdio: "inherit" },
    );
  // The entries as built: their function exports (of `lazyEntries`) load on first call.
  const entrySources = new Map<string, string>();
  const lazyFiles = new Set<string>();
  for (const [file, { expand = [], lazyFrom }] of Object.entries(lazyEntries)) {
    const values = new Map(Object.entries((await import(pathToFileURL(join(root, file)).href)) as Record<string, unknown>));
    const built = lazyEntrySource(reExportsOf(file, expand), values, dirname(file), lazyFrom && new Set(lazyFrom));
    entrySources.set(join(root, file), built.code);
    for (const f of built.lazyFiles) lazyFiles.add(f);
  }
  for (const [file, specs] of Object.entries(lazyImports)) {
    // A stand-in is a function: an import of anything else (a class, a context key) must stay.
    for (const { name, from } of lazyImportsOf(readFileSync(join(root, file), "utf8"), file, specs).names) {
      const value = ((await import(pathToFileURL(join(root, from)).href)) as Record<string, unknown>)[name];
      if (!standsIn(value)) throw new Error(`${file} imports ${name} from ${from}, which is not a plain function: it cannot load lazily`);
    }
    for (const spec of specs) lazyFiles.add(join(dirname(file), spec).replace(/\\/g, "/"));
  }
  const lazyInputs = Object.fromEntries([...lazyFiles].map((f) => [`${lazyDir}/${f.replace(/^src\//, "").replace(/\.ts$/, "")}`, f]));
  const loadedLazily = new Set(Object.values(lazyInputs).map((f) => join(root, f)));
  let hookPath = new Set<string>();
  let rootPath = new Set<string>();
  let corePath = new Set<string>();
  let agentPath = new Set<string>();
  const bundle = await rolldown({
    cwd: root,
    input: { ...entryPoints(pkg), ...lazyInputs },
    platform: "node",
    // Dependencies and optional peers stay imports, resolved in the user's node_modules.
    external: (id) => !id.startsWith(".") && !isAbsolute(id),
    logLevel: "warn",
    plugins: [
      {
        name: "lazy-loading",
        load: (id) => {
          const code = entrySources.get(id);
          return code === undefined ? null : { code, moduleType: "js" };
        },
        transform: (code, id) => {
          const file = relative(root, id).replace(/\\/g, "/");
          return Object.hasOwn(lazyImports, file) ? { code: lazyImportsOf(code, file, lazyImports[file]!).code } : null;
        },
        renderChunk: (code, chunk) => resolveLazyPaths(code, chunk.fileName),
      },
      { name: "builtins-as-lookups", renderChunk: (code) => builtinsAsLookups(code) },
      {
        // The files more than one entry or a lazy load reach: one instance each (see oneInstance).
        name: "one-instance",
        renderChunk: (code, chunk) =>
          /^(chunks|lazy)\//.test(chunk.fileName) && !isReExportsOnly(code)
            ? oneInstance(code, `${chunk.fileName}#${createHash("sha256").update(code).digest("hex").slice(0, 16)}`)
            : null,
      },
      {
        name: "claude-hook-path",
        buildEnd() {
          const seen = new Set<string>();
          const visit = (id: string): void => {
            if (seen.has(id)) return;
            seen.add(id);
            for (const next of (this.getModuleInfo(id) as ModuleInfo | null)?.importedIds ?? []) visit(next);
          };
          for (const f of hookEntries) visit(join(root, f));
          hookPath = new Set(seen);
          seen.clear();
          visit(join(root, "src/index.ts"));
          rootPath = new Set(seen);
          seen.clear();
          visit(join(root, "src/core/index.ts"));
          corePath = new Set(seen);
          for (const f of [...hookEntries, "src/index.ts", "src/agent/index.ts"]) visit(join(root, f));
          agentPath = seen;
        },
      },
    ],
  });
  // One chunk per middleware the root loads on first call, after the shared middleware chunk; a
  // file before the files that import it, or its chunk would take it (a group takes what its
  // files import, unless a group before it took it).
  const at = chunks.indexOf("middleware") + 1;
  const allChunks = [
    ...chunks.slice(0, at),
    ...importsFirst([...lazyFiles].filter((f) => f.startsWith("src/middleware/"))).map((f) => chunkOf(f, false, false, true)!),
    ...chunks.slice(at),
  ];
  await bundle.write({
    dir: out,
    format: "esm",
    entryFileNames: "[name].js",
    chunkFileNames: "chunks/[name].js",
    comments: { legal: false, annotation: true, jsdoc: false },
    codeSplitting: {
      groups: allChunks.map((name, i) => ({
        name,
        priority: allChunks.length - i,
        test: (id: string) =>
          chunkOf(
            relative(root, id).replace(/\\/g, "/"),
            hookPath.has(id),
            rootPath.has(id),
            loadedLazily.has(id),
            corePath.has(id),
            agentPath.has(id),
          ) === name,
      })),
    },
  });
  await bundle.close();
  check(out, "index.js", "any");
  check(out, "core/index.js", ["effect", "@opentelemetry/api", "ioredis", "koa-compose"]);
  check(out, "cli/run.js", "any");
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
