import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * Every public export carries a one-line summary and an `@example` (the style the project
 * follows: Effect's and the AI SDK's doc comments). Types and interfaces need the summary only.
 * Public means exported by an entry point of package.json's `exports`.
 */
const root = fileURLToPath(new URL("../../", import.meta.url));
const pkg = JSON.parse(readFileSync(`${root}package.json`, "utf8")) as {
  exports: Record<string, string | { types: string; default: string }>;
  files: string[];
  bin: Record<string, string>;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};
const entries = Object.entries(pkg.exports).filter((e): e is [string, { types: string; default: string }] => typeof e[1] === "object");
const sourceOf = (target: string): string => target.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts");

const program = ts.createProgram(
  entries.map(([, t]) => `${root}${sourceOf(t.default)}`),
  {
    allowImportingTsExtensions: true,
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    skipLibCheck: true,
  },
);
const checker = program.getTypeChecker();
const exportsOf = (file: string): ts.Symbol[] => {
  const source = program.getSourceFile(`${root}${file}`);
  if (source === undefined) throw new Error(`${file} not found`);
  return checker
    .getExportsOfModule(checker.getSymbolAtLocation(source) as ts.Symbol)
    .map((s) => (s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s));
};
const all = [...new Set(entries.flatMap(([, t]) => exportsOf(sourceOf(t.default))))];

const isValue = (s: ts.Symbol) => (s.flags & (ts.SymbolFlags.Function | ts.SymbolFlags.Class | ts.SymbolFlags.Variable)) !== 0;
const docOf = (s: ts.Symbol) => ts.displayPartsToString(s.getDocumentationComment(checker)).trim();
const tagsOf = (s: ts.Symbol) => s.getJsDocTags(checker).map((t) => t.name);

describe("public API documentation", () => {
  it("exports a substantial API from the entry points", () => {
    expect(all.length).toBeGreaterThan(100);
  });

  it("gives every exported function, class and constant a one-line summary", () => {
    const missing = all
      .filter(isValue)
      .filter((s) => docOf(s) === "")
      .map((s) => s.getName());
    expect(missing).toEqual([]);
  });

  it("gives every exported function and class an @example", () => {
    const missing = all
      .filter(
        (s) =>
          (s.flags & (ts.SymbolFlags.Function | ts.SymbolFlags.Class)) !== 0 ||
          ((s.flags & ts.SymbolFlags.Variable) !== 0 && /=>|function/.test(s.valueDeclaration?.getText() ?? "")),
      )
      .filter((s) => !tagsOf(s).includes("example"))
      .map((s) => s.getName());
    expect(missing).toEqual([]);
  });
});

describe("package.json exports", () => {
  it("has the root and one subpath per area", () => {
    expect(Object.keys(pkg.exports)).toEqual([
      ".",
      "./core",
      "./agent",
      "./middleware",
      "./claude",
      "./ai-sdk",
      "./mcp",
      "./otel",
      "./redis",
      "./effect",
      "./koa",
      "./langchain",
      "./openai-agents",
      "./claude-agent-sdk",
      "./package.json",
    ]);
  });

  it("points every entry at what the build makes from an existing source file, types beside code", () => {
    for (const [, entry] of entries) {
      expect(entry.default).toMatch(/^\.\/dist\/.*\.js$/);
      expect(entry.types).toBe(entry.default.replace(/\.js$/, ".d.ts"));
      expect(existsSync(`${root}${sourceOf(entry.default)}`)).toBe(true);
    }
  });

  it("maps the same names to the sources for the checkout (tsconfig paths), so examples import the package by name", () => {
    const config = ts.readConfigFile(`${root}tsconfig.json`, (p) => readFileSync(p, "utf8")).config as {
      compilerOptions: { paths: Record<string, string[]> };
    };
    const expected = Object.fromEntries(entries.map(([key, t]) => [`agent-onion${key.slice(1)}`, [`./${sourceOf(t.default)}`]]));
    expect(config.compilerOptions.paths).toEqual(expected);
  });

  it("keeps the root free of what needs an optional or heavy package: Effect, OpenTelemetry, ioredis", () => {
    const rootNames = new Set(exportsOf("src/index.ts").map((s) => s.getName()));
    for (const name of ["fromClaudeSettings", "commandHook", "effectHook", "metrics", "tracing", "RedisStore"])
      expect(rootNames.has(name), name).toBe(false);
    for (const name of ["createAgentStack", "Reject", "createAgent", "guards", "redaction", "aiSdkMiddleware", "wrapMcpClient", "fromKoa"])
      expect(rootNames.has(name), name).toBe(true);
  });

  it("declares adapter packages as optional peers, and ships a bin that exists", () => {
    expect(pkg.peerDependencies).toMatchObject({ "@opentelemetry/api": expect.any(String), ioredis: expect.any(String) });
    for (const name of Object.keys(pkg.peerDependencies)) expect(pkg.peerDependenciesMeta[name]?.optional, name).toBe(true);
    expect(pkg.dependencies["@opentelemetry/api"]).toBeUndefined();
    expect(pkg.bin["agent-onion"]).toBe("bin/agent-onion.js");
    expect(existsSync(`${root}${pkg.bin["agent-onion"]}`)).toBe(true);
    expect(pkg.files).toEqual(["dist", "bin"]);
  });
});
