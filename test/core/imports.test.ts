import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseCircular, parseDependencyTree, shortenTree } from "dpdm";
import { describe, expect, it } from "vitest";
import { scaled } from "../support/scale.ts";

const root = resolve(fileURLToPath(new URL("../..", import.meta.url)));

/** The import cycles among `files` (a glob under `context`), type-only imports included unless `runtimeOnly`. */
const cyclesOf = async (files: string, context: string, runtimeOnly: boolean): Promise<string[][]> => {
  const tree = await parseDependencyTree(files, { cwd: context, context, transform: runtimeOnly, skipDynamicImports: false });
  return parseCircular(shortenTree(context, tree));
};

describe("imports", () => {
  it(
    "make no cycle within src/core, type-only imports included",
    async () => {
      expect(await cyclesOf("src/core/**/*.ts", root, false)).toEqual([]);
    },
    scaled(60_000),
  );

  it(
    "make no cycle anywhere in src at run time",
    async () => {
      expect(await cyclesOf("src/**/*.ts", root, true)).toEqual([]);
    },
    scaled(60_000),
  );

  it(
    "keep src/core free of imports from the rest of src",
    async () => {
      const tree = shortenTree(root, await parseDependencyTree("src/core/**/*.ts", { cwd: root, context: root, transform: false }));
      const outside = Object.entries(tree)
        .filter(([file]) => file.startsWith("src/core/"))
        .flatMap(([file, deps]) =>
          (deps ?? []).filter((d) => d.id?.startsWith("src/") && !d.id.startsWith("src/core/")).map((d) => `${file} -> ${d.id}`),
        );
      expect(outside).toEqual([]);
    },
    scaled(60_000),
  );

  it("are checked by a tool that does find a cycle", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agent-onion-cycle-"));
    writeFileSync(join(dir, "a.ts"), 'import { b } from "./b.ts";\nexport const a = (): number => b() + 1;\n');
    writeFileSync(join(dir, "b.ts"), 'import type { a } from "./a.ts";\nexport const b = (): number => 1;\nexport type A = typeof a;\n');
    expect((await cyclesOf("*.ts", dir, false)).map((cycle) => cycle.map((f) => basename(f)).sort())).toEqual([["a.ts", "b.ts"]]);
    // Type-only: no cycle once types are left out.
    expect(await cyclesOf("*.ts", dir, true)).toEqual([]);
  });
});
