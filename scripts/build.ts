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
import { readFileSync, rmSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
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
export const chunkOf = (file: string, onHookPath: boolean): string | undefined => {
  if (file.startsWith("src/core/")) return "core";
  if (file.startsWith("src/agent/")) return "agent";
  // Shared by the AI SDK, LangChain and OpenAI Agents adapters, and built on the agent layer they all load.
  if (file === "src/adapters/call-context.ts") return "agent";
  // metrics and tracing (with its AI SDK tracer) import @opentelemetry/api, an optional peer:
  // never in the middleware chunk.
  if (/^src\/middleware\/(metrics|tracing|tracing-ai-sdk)\.ts$/.test(file)) return "otel";
  if (file.startsWith("src/middleware/")) return "middleware";
  if (file.startsWith("src/executors/")) return onHookPath ? "claude-bridge" : "claude";
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
  "middleware",
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
  let hookPath = new Set<string>();
  const bundle = await rolldown({
    cwd: root,
    input: entryPoints(pkg),
    platform: "node",
    // Dependencies and optional peers stay imports, resolved in the user's node_modules.
    external: (id) => !id.startsWith(".") && !isAbsolute(id),
    logLevel: "warn",
    plugins: [
      { name: "builtins-as-lookups", renderChunk: (code) => builtinsAsLookups(code) },
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
          hookPath = seen;
        },
      },
    ],
  });
  await bundle.write({
    dir: out,
    format: "esm",
    entryFileNames: "[name].js",
    chunkFileNames: "chunks/[name].js",
    comments: { legal: false, annotation: true, jsdoc: false },
    codeSplitting: {
      groups: chunks.map((name, i) => ({
        name,
        priority: chunks.length - i,
        test: (id: string) => chunkOf(relative(root, id).replace(/\\/g, "/"), hookPath.has(id)) === name,
      })),
    },
  });
  await bundle.close();
  check(out, "index.js", "any");
  check(out, "core/index.js", ["effect", "@opentelemetry/api", "ioredis", "koa-compose"]);
  check(out, "cli/run.js", "any");
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
