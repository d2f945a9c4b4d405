import { createHash, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { builtinsAsLookups, lazyEntrySource, lazyImportsOf, oneInstance, reExportsOf, resolveLazyPaths } from "../../scripts/build.ts";

/** Run built code that ends with `return ...;` as a function body. */
const evaluate = (code: string): unknown => new Function(code)();

describe("builtinsAsLookups", () => {
  it("turns an import of a built-in into a look-up of the module Node has loaded", () => {
    const out = builtinsAsLookups('import { join, sep as separator } from "node:path";\nreturn join("a", "b") + separator;');
    expect(out).not.toMatch(/^import/m);
    expect(evaluate(out)).toBe(`a/b/`);
  });

  it("turns a default import into the module itself", () => {
    expect(evaluate(builtinsAsLookups('import path from "node:path";\nreturn path.basename("/x/y.js");'))).toBe("y.js");
  });

  it("makes functions of a heavy built-in load it on their first call, and work as the originals do", () => {
    const out = builtinsAsLookups(
      'import { createHash as hash, randomUUID } from "node:crypto";\nreturn [hash("sha256").update("x").digest("hex"), randomUUID()];',
    );
    expect(out).not.toContain('node:crypto";');
    const [digest, uuid] = evaluate(out) as [string, string];
    expect(digest).toBe(createHash("sha256").update("x").digest("hex"));
    expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it("refuses a class from a heavy built-in, whose instanceof a stand-in would break", () => {
    expect(() => builtinsAsLookups('import { Agent } from "node:http";')).toThrow(
      /Agent from node:http .* must be a function, not a class/,
    );
  });

  it("refuses an import it cannot rewrite rather than leave it", () => {
    expect(() => builtinsAsLookups('import fs, { readFileSync } from "node:fs";')).toThrow(/cannot turn into a look-up/);
  });

  it("leaves imports of the package's own files and of packages alone", () => {
    const code = 'import { a } from "./chunks/core.js";\nimport picomatch from "picomatch";\n';
    expect(builtinsAsLookups(code)).toBe(code);
  });
});

describe("the root entry as built", () => {
  const root = reExportsOf("src/index.ts", ["src/middleware/index.ts"]);
  const values = new Map<string, unknown>([
    ["retry", (_options?: unknown) => undefined],
    ["LimitExceededError", class LimitExceededError extends Error {}],
    ["GenAiAttr", { system: "gen_ai.system" }],
    ["Detectors", { email: {}, defaults: () => [] }],
  ]);
  const entry = {
    named: [
      { name: "retry", from: "src/middleware/retry.ts" },
      { name: "LimitExceededError", from: "src/middleware/errors.ts" },
      { name: "GenAiAttr", from: "src/middleware/semconv.ts" },
      { name: "Detectors", from: "src/middleware/detectors.ts" },
    ],
    stars: ["src/core/index.ts"],
  };

  it("re-exports the engine and the agent layer as they are, and names every middleware export with its file", () => {
    expect(root.stars).toEqual(["src/core/index.ts", "src/agent/index.ts"]);
    expect(root.named).toContainEqual({ name: "retry", from: "src/middleware/retry.ts" });
    expect(root.named).toContainEqual({ name: "fromKoa", from: "src/adapters/koa.ts" });
    expect(root.named.map((e) => e.name)).not.toContain("McpStreamMessage");
  });

  it("imports classes and constants as they are, and makes functions load their file on first call", () => {
    const { code, lazyFiles } = lazyEntrySource(entry, values, "src");
    expect(code).toContain('export * from "./core/index.ts";');
    expect(code).toContain('export { LimitExceededError } from "./middleware/errors.ts";');
    expect(code).toContain('export { GenAiAttr } from "./middleware/semconv.ts";');
    expect(code).toMatch(/export function retry\(\.\.\.args\) \{\n\treturn load\d+\(\)\.retry\.apply\(this, args\);/);
    expect(code).toContain('Object.defineProperty(retry, "length", { value: 1 });');
    expect(code).toMatch(/export const Detectors = Object\.defineProperties\(\{\}, \{\n\t"email": \{ enumerable: true, get: /);
    expect([...lazyFiles]).toEqual(["src/middleware/retry.ts", "src/middleware/detectors.ts"]);
  });

  it("makes only the functions of the files it is given load lazily, and keeps a renamed export's name", () => {
    const agent = {
      named: [
        { name: "createAgent", from: "src/agent/agent.ts" },
        { name: "createAgentStack", from: "src/agent/stack.ts" },
        { name: "stopFeedback", from: "src/agent/stop.ts", imported: "feedback" },
      ],
      stars: [],
    };
    const fns = new Map<string, unknown>([
      ["createAgent", (_options: unknown) => undefined],
      ["createAgentStack", () => undefined],
      ["stopFeedback", (_reason: unknown) => undefined],
    ]);
    const { code, lazyFiles } = lazyEntrySource(agent, fns, "src/agent", new Set(["src/agent/agent.ts", "src/agent/stop.ts"]));
    expect(code).toContain('export { createAgentStack } from "./stack.ts";');
    expect(code).toMatch(/export function createAgent\(\.\.\.args\) \{\n\treturn load\d+\(\)\.createAgent\.apply/);
    expect(code).toMatch(/export function stopFeedback\(\.\.\.args\) \{\n\treturn load\d+\(\)\.feedback\.apply/);
    expect([...lazyFiles]).toEqual(["src/agent/agent.ts", "src/agent/stop.ts"]);
    const eager = lazyEntrySource(agent, fns, "src/agent", new Set());
    expect(eager.code).toContain('export { feedback as stopFeedback } from "./stop.ts";');
    expect(eager.lazyFiles.size).toBe(0);
  });

  it("turns named imports of functions into functions that load the module once, keeping type imports as types", () => {
    const { code, lazyFiles, names } = lazyImportsOf(
      'import { scan, type Detection } from "./detectors.ts";\nexport const f = () => scan();\n',
      "src/middleware/stream-redactor.ts",
      ["./detectors.ts"],
    );
    expect(code).toContain('import type { Detection } from "./detectors.ts";');
    expect(code).not.toMatch(/^import \{/m);
    expect(code).toContain('"agent-onion-lazy:src/middleware/detectors.ts"');
    expect(lazyFiles).toEqual(["src/middleware/detectors.ts"]);
    expect(names).toEqual([{ name: "scan", from: "src/middleware/detectors.ts" }]);
    expect(() => lazyImportsOf('import { scan } from "./other.ts";\n', "src/x.ts", ["./detectors.ts"])).toThrow(/no import/);
  });

  it("points each lazily loaded file at dist/lazy/, relative to the file written", () => {
    const code = 'require("agent-onion-lazy:src/middleware/retry.ts");';
    expect(resolveLazyPaths(code, "index.js")).toBe('require("./lazy/middleware/retry.js");');
    expect(resolveLazyPaths(code, "chunks/core.js")).toBe('require("../lazy/middleware/retry.js");');
  });
});

describe("oneInstance", () => {
  /** Import `code` twice as two modules (two URLs), as a loader that compiles require()'d files does. */
  const importTwice = async (code: string): Promise<[Record<string, unknown>, Record<string, unknown>]> => {
    const dir = mkdtempSync(join(tmpdir(), "one-instance-"));
    try {
      writeFileSync(join(dir, "dep.mjs"), "export const one = 1;\n");
      writeFileSync(join(dir, "m.mjs"), code);
      const url = pathToFileURL(join(dir, "m.mjs")).href;
      return [await import(`${url}?first`), await import(`${url}?second`)];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  const module = (key: string): string =>
    oneInstance(
      'import { one } from "./dep.mjs";\nclass Failure extends Error {}\nconst cache = new WeakMap();\nconst { join } = process.getBuiltinModule("node:path");\nimport { one as uno } from "./dep.mjs";\nexport { Failure as t, cache as n, uno as r, join as default };\n',
      key,
    );

  it("gives a module evaluated twice the exports of its first evaluation: one class, one cache", async () => {
    const [first, second] = await importTwice(module(`chunks/x.js#${randomUUID()}`));
    expect(second.t).toBe(first.t);
    expect(second.n).toBe(first.n);
    expect(first.r).toBe(1);
    expect(typeof first.default).toBe("function");
  });

  it("keeps modules of different keys apart, so two different builds never share", async () => {
    const [a] = await importTwice(module(`chunks/x.js#${randomUUID()}`));
    const [b] = await importTwice(module(`chunks/x.js#${randomUUID()}`));
    expect(a.t).not.toBe(b.t);
  });

  it("refuses an export assigned again after the body ran, whose importers would keep a stale value", () => {
    expect(() => oneInstance("let n = 0;\nfunction bump() { n += 1; }\nexport { n as a, bump as b };\n", "k")).toThrow(
      /n is exported and assigned again/,
    );
    expect(oneInstance("var C = class {};\nconst f = () => { const C = 1; return C; };\nexport { C as a, f as b };\n", "k")).toContain(
      "__instances.set",
    );
  });

  it("refuses a module whose exports are not one statement at its end", () => {
    expect(() => oneInstance("export const a = 1;\nconst b = 2;\nexport { b };\n", "k")).toThrow(/an export before the end/);
    expect(() => oneInstance("const a = 1;\n", "k")).toThrow(/without one export statement/);
  });
});
