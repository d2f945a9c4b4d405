import { describe, expect, it } from "vitest";
import ts from "typescript";
import { fileURLToPath } from "node:url";

/**
 * Every public export carries a one-line summary and an `@example` (the style the project
 * follows: Effect's and the AI SDK's doc comments). Types and interfaces need the summary only.
 */
const entry = fileURLToPath(new URL("../../src/index.ts", import.meta.url));
const program = ts.createProgram([entry], { allowImportingTsExtensions: true, noEmit: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, skipLibCheck: true });
const checker = program.getTypeChecker();
const source = program.getSourceFile(entry);
if (source === undefined) throw new Error("src/index.ts not found");
const moduleSymbol = checker.getSymbolAtLocation(source) as ts.Symbol;
const exports = checker.getExportsOfModule(moduleSymbol).map((s) => (s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s));

const isValue = (s: ts.Symbol) => (s.flags & (ts.SymbolFlags.Function | ts.SymbolFlags.Class | ts.SymbolFlags.Variable)) !== 0;
const docOf = (s: ts.Symbol) => ts.displayPartsToString(s.getDocumentationComment(checker)).trim();
const tagsOf = (s: ts.Symbol) => s.getJsDocTags(checker).map((t) => t.name);

describe("public API documentation", () => {
  it("exports a substantial API from src/index.ts", () => {
    expect(exports.length).toBeGreaterThan(100);
  });

  it("gives every exported function, class and constant a one-line summary", () => {
    const missing = exports.filter(isValue).filter((s) => docOf(s) === "").map((s) => s.getName());
    expect(missing).toEqual([]);
  });

  it("gives every exported function and class an @example", () => {
    const missing = exports
      .filter((s) => (s.flags & (ts.SymbolFlags.Function | ts.SymbolFlags.Class)) !== 0 || ((s.flags & ts.SymbolFlags.Variable) !== 0 && /=>|function/.test(s.valueDeclaration?.getText() ?? "")))
      .filter((s) => !tagsOf(s).includes("example"))
      .map((s) => s.getName());
    expect(missing).toEqual([]);
  });
});

describe("package.json exports", () => {
  it("points every entry at what the build makes from an existing source file, types beside code", async () => {
    const { readFileSync, existsSync } = await import("node:fs");
    const root = fileURLToPath(new URL("../../", import.meta.url));
    const pkg = JSON.parse(readFileSync(`${root}package.json`, "utf8")) as { exports: Record<string, { types: string; import: string }> };
    expect(Object.keys(pkg.exports)).toEqual([".", "./core", "./openai-agents"]);
    for (const entry of Object.values(pkg.exports)) {
      expect(entry.import).toMatch(/^\.\/dist\/.*\.js$/);
      expect(entry.types).toBe(entry.import.replace(/\.js$/, ".d.ts"));
      expect(existsSync(`${root}${entry.import.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts")}`)).toBe(true);
    }
  });
});
