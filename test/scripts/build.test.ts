import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { builtinsAsLookups } from "../../scripts/build.ts";

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
