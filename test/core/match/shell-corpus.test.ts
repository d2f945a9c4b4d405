import { afterAll, describe, expect, it } from "vitest";
import { createAgentStack } from "../../../src/agent/index.ts";
import { Continue } from "../../../src/core/index.ts";
import { shellAnalysisCount } from "../../../src/core/match/shell.ts";
import { toolPolicy, withMiddleware } from "../../../src/middleware/index.ts";
import { ATTACKS } from "../../fixtures/shell-corpus/attacks.ts";
import { ATTACK_ALLOW, bashRuns, figures, missingPrograms, needs, pool } from "../../fixtures/shell-corpus/evaluate.ts";
import { EVERYDAY } from "../../fixtures/shell-corpus/everyday.ts";

const skipped: string[] = [];
afterAll(() => {
  // Told once: CI should install these Debian packages to check every label.
  if (skipped.length > 0)
    console.info(`shell corpus: ${skipped.length} labels not checked against bash; missing programs: ${[...new Set(skipped)].join(", ")}`);
});

describe("the shell corpus", () => {
  it("holds at least 300 attack commands in every attack class and 100 everyday commands", () => {
    const f = figures();
    expect(f.attacks).toBeGreaterThanOrEqual(300);
    expect(f.classes).toBeGreaterThanOrEqual(15);
    expect(f.everyday).toBeGreaterThanOrEqual(100);
  });

  it("labels each command as a real bash runs it", async () => {
    const missing = await missingPrograms();
    const checked = ATTACKS.filter((c) => {
      const lacking = needs(c, missing);
      skipped.push(...lacking);
      return lacking.length === 0;
    });
    const ran = await pool(checked, 8, (c) => bashRuns(c.command));
    const wrong = checked
      .filter((c, i) => ran[i] !== c.runs)
      .map((c) => `${c.runs ? "runs" : "does not run"} is wrong for ${JSON.stringify(c.command)}`);
    expect(wrong).toEqual([]);
  }, 600_000); // hundreds of real bash runs: minutes on a loaded machine; the bound is only against a hang

  const f = figures();

  it("never lets an allow list without touch allow a command that runs it", () => {
    expect(f.allowBypasses).toEqual([]);
  });

  it("matches a Bash(touch *) deny rule on every command that runs touch, but for programs that run code of their own", () => {
    expect(f.denyMisses).toEqual([]);
    expect(ATTACKS.filter((c) => c.limit !== undefined).length).toBeGreaterThan(0);
  });

  it("allows at least 98 % of the everyday commands with a reasonable allow list, and a deny rule on touch matches as few", () => {
    expect(f.everydayRefused.length / f.everyday).toBeLessThanOrEqual(0.02);
    expect(f.everydayDenied.length / f.everyday).toBeLessThanOrEqual(0.02);
  });
});

describe("one call, many shell conditions", () => {
  it("analyses the command once for 1,000 Bash(...) condition hooks and a policy on the same call", async () => {
    let stack = createAgentStack();
    for (let i = 0; i < 1000; i++) stack = stack.use("toolCall", { name: `guard-${i}`, match: `Bash(tool${i} *)`, before: () => Continue });
    stack = withMiddleware(stack, toolPolicy({ allow: ATTACK_ALLOW, deny: ["Bash(touch *)"] }));
    const command = `git status && echo ${EVERYDAY.length} && cat README.md # a command no other test analyses`;
    const before = shellAnalysisCount();
    const outcome = await stack.run("toolCall", { id: "c", name: "Bash", input: { command } }, () => ({ content: "ran" }));
    expect(outcome._tag).toBe("Completed");
    expect(shellAnalysisCount() - before).toBe(1);
  });
});
