import { describe, expect, it } from "vitest";
import { RegistrationError } from "../../../src/core/errors.ts";
import { compileMatcher, MAX_MATCH_DEPTH } from "../../../src/core/match/matcher.ts";
import type { MatchSpec } from "../../../src/core/match/types.ts";
import { budgetMs, timed } from "../../support/timing.ts";

/** What a compiled matcher answers for one run: the chain cache's subject check, then the per-run test. */
const decide = (spec: unknown, subject: string | undefined, metadata: Record<string, unknown> | undefined, detail?: string): boolean => {
  const m = compileMatcher(spec, "h");
  const answer = m.matchSubject(subject) && (!m.needsInput || m.test(subject, {}, () => detail, metadata));
  // The subject check never says no where the full test says yes.
  if (m.test(subject, {}, () => detail, metadata)) expect(m.matchSubject(subject)).toBe(true);
  return answer;
};

const prodOnly = (_s: string | undefined, _i: unknown, { metadata }: { metadata: Readonly<Record<string, unknown>> }) =>
  metadata.env === "prod";

describe("composite matchers decide as and, or and not over every matcher form", () => {
  // [label, match, subject, metadata, detail, expected]
  const table: [string, MatchSpec, string | undefined, Record<string, unknown> | undefined, string | undefined, boolean][] = [
    ["all of a name and metadata: both hold", { all: ["Bash", { metadata: { env: "prod" } }] }, "Bash", { env: "prod" }, undefined, true],
    [
      "all of a name and metadata: wrong environment",
      { all: ["Bash", { metadata: { env: "prod" } }] },
      "Bash",
      { env: "dev" },
      undefined,
      false,
    ],
    ["all of a name and metadata: wrong tool", { all: ["Bash", { metadata: { env: "prod" } }] }, "Read", { env: "prod" }, undefined, false],
    [
      "all of a name and metadata: no metadata given",
      { all: ["Bash", { metadata: { env: "prod" } }] },
      "Bash",
      undefined,
      undefined,
      false,
    ],
    ["any of two names: the second", { any: ["Write", "Edit"] }, "Edit", {}, undefined, true],
    ["any of two names: neither", { any: ["Write", "Edit"] }, "Read", {}, undefined, false],
    [
      "any of a name or metadata: metadata alone",
      { any: ["Write", { metadata: { role: "admin" } }] },
      "Read",
      { role: "admin" },
      undefined,
      true,
    ],
    ["not a name: another tool", { not: "Bash" }, "Read", {}, undefined, true],
    ["not a name: that tool", { not: "Bash" }, "Bash", {}, undefined, false],
    ["not a regex: a match", { not: "^mcp__" }, "mcp__fs__read", {}, undefined, false],
    ["not a regex: no match", { not: "^mcp__" }, "Read", {}, undefined, true],
    ["not match-all matches nothing", { not: "*" }, "Bash", {}, undefined, false],
    [
      "a condition inside all: the command matches",
      { all: ["Bash(rm *)", { metadata: { env: "prod" } }] },
      "Bash",
      { env: "prod" },
      "ls && rm -rf /",
      true,
    ],
    [
      "a condition inside all: the command does not",
      { all: ["Bash(rm *)", { metadata: { env: "prod" } }] },
      "Bash",
      { env: "prod" },
      "ls -la",
      false,
    ],
    ["not a condition: a harmless command", { not: "Bash(rm *)" }, "Bash", {}, "git status", true],
    ["not a condition: an rm", { not: "Bash(rm *)" }, "Bash", {}, "rm -rf /", false],
    ["a path family inside any: Write is covered by Edit(…)", { any: ["Edit(src/**)", "Bash"] }, "Write", {}, "src/a.ts", true],
    ["a path family inside any: outside src", { any: ["Edit(src/**)", "Bash"] }, "Write", {}, "lib/a.ts", false],
    ["a function inside all reads the metadata", { all: ["Bash", prodOnly] }, "Bash", { env: "prod" }, undefined, true],
    ["a function inside all reads the metadata: dev", { all: ["Bash", prodOnly] }, "Bash", { env: "dev" }, undefined, false],
    [
      "nested: prod Bash unless on call",
      { all: ["Bash", { metadata: { env: "prod" } }, { not: { metadata: { oncall: { exists: true } } } }] },
      "Bash",
      { env: "prod" },
      undefined,
      true,
    ],
    [
      "nested: prod Bash, but someone is on call",
      { all: ["Bash", { metadata: { env: "prod" } }, { not: { metadata: { oncall: { exists: true } } } }] },
      "Bash",
      { env: "prod", oncall: "ana" },
      undefined,
      false,
    ],
    ["double negation is the matcher itself", { not: { not: "Bash" } }, "Bash", {}, undefined, true],
    ["any with match-all matches everything", { any: ["Write", "*"] }, "Read", {}, undefined, true],
    ["all of one is that one", { all: [{ metadata: { env: ["prod", "staging"] } }] }, "x", { env: "staging" }, undefined, true],
    [
      "an undefined subject fails a name inside all",
      { all: ["Bash", { metadata: { env: "prod" } }] },
      undefined,
      { env: "prod" },
      undefined,
      false,
    ],
    ["an undefined subject passes a metadata matcher", { metadata: { env: "prod" } }, undefined, { env: "prod" }, undefined, true],
    ["an undefined subject passes not-a-name", { not: "Bash" }, undefined, {}, undefined, true],
  ];
  it.each(table)("%s", (_label, spec, subject, metadata, detail, expected) => {
    expect(decide(spec, subject, metadata, detail)).toBe(expected);
  });

  it("decides by the subject alone (no per-run test) when no part needs the run", () => {
    const m = compileMatcher({ any: ["Write", { not: "^Edit$" }] }, "h");
    expect(m.needsInput).toBe(false);
    expect([m.matchSubject("Write"), m.matchSubject("Edit"), m.matchSubject("Read")]).toEqual([true, false, true]);
  });

  it("is tested per run as soon as one part reads metadata, a condition or a function", () => {
    for (const part of [{ metadata: { env: "prod" } }, "Bash(rm *)", () => true] as MatchSpec[])
      expect(compileMatcher({ any: ["Write", part] }, "h").needsInput).toBe(true);
  });

  it("is match-all when a part of any is, so it costs nothing per run", () => {
    const m = compileMatcher({ any: [{ metadata: { env: "prod" } }, "*"] }, "h");
    expect(m).toMatchObject({ all: true, needsInput: false });
  });

  it("runs a RegExp part in linear time: a pattern that backtracks exponentially in V8 stays fast", () => {
    const m = compileMatcher({ all: [{ not: "Read" }, { any: ["Write", "^(a+)+$"] }] }, "h");
    const subject = `${"a".repeat(10_000)}!`;
    expect(timed(() => m.matchSubject(subject))).toBeLessThan(budgetMs);
    expect(m.matchSubject(subject)).toBe(false);
  });

  it("keeps the match as written for traces and explain", () => {
    expect(compileMatcher({ all: ["Bash", { metadata: { env: "prod" } }] }, "h").source).toBe(
      '{"all":["Bash",{"metadata":{"env":"prod"}}]}',
    );
    expect(
      compileMatcher(
        {
          not: function internal() {
            return true;
          },
        },
        "h",
      ).source,
    ).toBe('{"not":"function internal"}');
  });

  it("accepts a compiled matcher as a part, with its options", () => {
    const lint = compileMatcher("Edit(src/**)", "h", { paths: { projectDir: "/repo", cwd: "/repo", symlinks: false } });
    const m = compileMatcher({ all: [lint, { metadata: { ci: true } }] }, "h");
    expect(m.test("Edit", {}, () => "/repo/src/a.ts", { ci: true })).toBe(true);
    expect(m.test("Edit", {}, () => "/elsewhere/src/a.ts", { ci: true })).toBe(false);
  });
});

describe("an invalid composite is a registration error naming the hook and the path of the bad part", () => {
  // [match, field, problem]
  const invalid: [unknown, string, RegExp][] = [
    [{ any: ["Bash", { metadata: { env: { eq: "prod" } } }] }, "match.any[1].metadata.env", /a value, a list of values or \{ exists/],
    [{ all: ["Bash", { not: "(unclosed" }] }, "match.all[1].not", /not a valid regular expression/],
    [{ all: ["Bash", { not: "(a+)+\\1" }] }, "match.all[1].not", /back-reference/i],
    [{ any: ["Edit|Write(src/**)"] }, "match.any[0]", /names several tools in one condition/],
    [{ any: [{ metdata: { env: "prod" } }] }, "match.any[0].metdata", /is not a match form/],
    [{ all: [] }, "match.all", /empty list/],
    [{ any: [] }, "match.any", /empty list/],
    [{ all: "Bash" }, "match.all", /must be a list of matches/],
    [{ any: ["Bash", undefined] }, "match.any[1]", /is undefined/],
    [{ any: ["Bash", 42] }, "match.any[1]", /got number/],
    [{ stepType: "tool", metadata: { env: "prod" } }, "match", /exactly one of/],
    [{}, "match", /empty object/],
    [{ not: { metadata: {} } }, "match.not.metadata", /names no keys/],
    [{ metadata: { env: [] } }, "match.metadata.env", /empty list/],
    [{ metadata: { env: ["prod", { x: 1 }] } }, "match.metadata.env[1]", /string, number, boolean or null/],
    [{ metadata: { "team.name": () => true } }, 'match.metadata["team.name"]', /got a function/],
    [{ metadata: ["env"] }, "match.metadata", /must be an object/],
    [{ stepType: [] }, "match.stepType", /empty list/],
    [{ stepType: ["tool", 3] }, "match.stepType[1]", /must be a step type name/],
    [{ stepType: "tool call" }, "match.stepType", /not a step type name/],
    [{ any: ["Read", /^Bash/] }, "match.any[1]", /RegExp object; give its pattern as a string \("\^Bash"\)/],
  ];
  it.each(invalid)("%j is refused at %s", (spec, field, problem) => {
    let error: unknown;
    try {
      compileMatcher(spec, "guard");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RegistrationError);
    expect(error).toMatchObject({ hook: "guard", field });
    expect((error as Error).message).toMatch(problem);
  });

  it("refuses composites nested deeper than the limit, and accepts them at the limit", () => {
    const nest = (n: number): unknown => (n === 0 ? "Bash" : { not: nest(n - 1) });
    expect(compileMatcher(nest(MAX_MATCH_DEPTH), "h").matchSubject("Bash")).toBe(true); // an even number of nots
    expect(() => compileMatcher(nest(MAX_MATCH_DEPTH + 1), "h")).toThrow(/nests composites more than 32 deep/);
  });

  it("accepts a Matcher written by hand, and checks its fields", () => {
    const hand = {
      source: "even",
      all: false,
      needsInput: false,
      needsSubject: true,
      matchSubject: (s?: string) => (s?.length ?? 1) % 2 === 0,
      test: (s?: string) => (s?.length ?? 1) % 2 === 0,
    };
    expect(compileMatcher({ any: [hand, "Read"] }, "h").matchSubject("Bash")).toBe(true);
    expect(() => compileMatcher({ ...hand, all: "no" }, "h")).toThrow(/match\.all must be a boolean/);
  });
});
