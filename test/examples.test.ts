/**
 * Every runnable file in examples/ runs here as a child process, so none can rot: it must exit
 * with code 0 and print the line its doc comment promises (`@expect <line>`).
 */
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { scaled } from "./support/scale.ts";

const dir = join(dirname(fileURLToPath(import.meta.url)), "..", "examples");
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".ts"))
  .sort();

const run = (file: string) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", join(dir, file)],
      { env: { ...process.env, NO_COLOR: "1" }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
    );
  });

describe("examples", () => {
  it("exist", () => expect(files.length).toBeGreaterThan(0));

  for (const file of files)
    it.concurrent(
      `${file} runs and prints what it promises`,
      async () => {
        const promised = [...readFileSync(join(dir, file), "utf8").matchAll(/^\s*\*\s*@expect (.+)$/gm)].map((m) =>
          (m[1] as string).trim(),
        );
        expect(promised, `add an "@expect <line of output>" to the doc comment of examples/${file}`).not.toEqual([]);
        const { code, stdout, stderr } = await run(file);
        expect(code, stderr).toBe(0);
        for (const line of promised) expect(stdout).toContain(line);
      },
      scaled(60_000),
    );
});
