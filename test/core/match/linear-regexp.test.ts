import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { RegistrationError } from "../../../src/core/errors.ts";
import { compileLinearRegExp, MAX_PROGRAM, MAX_REPEAT } from "../../../src/core/match/linear-regexp.ts";
import { compileMatcher } from "../../../src/core/match/matcher.ts";
import { createStack } from "../../../src/core/stack.ts";
import { gate } from "../../../src/core/point.ts";
import { fromClaudeSettings } from "../../../src/executors/settings.ts";
import { budgetMs, timed } from "../../support/timing.ts";

describe("a RegExp matcher on a hostile pattern", () => {
  // Classic catastrophic-backtracking shapes, each with a subject that makes a backtracking engine take exponential time.
  const hostile: [string, string][] = [
    ["^(a+)+$", `${"a".repeat(10_000)}!`],
    ["^(a|a)*$", `${"a".repeat(10_000)}!`],
    ["^(a|aa)+$", `${"a".repeat(10_000)}!`],
    ["^(a*)*$", `${"a".repeat(10_000)}!`],
    ["(x+x+)+y", "x".repeat(10_000)],
    ["^(\\w+\\s?)*$", `${"word ".repeat(2_000)}!`],
    [
      "^([a-zA-Z0-9])(([\\-.]|[_]+)?([a-zA-Z0-9]+))*(@){1}[a-z0-9]+[.]{1}(([a-z]{2,3})|([a-z]{2,3}[.]{1}[a-z]{2,3}))$",
      `${"a".repeat(10_000)}!`,
    ],
    ["^(.*a){20}$", "a".repeat(10_000)],
    ["(\\d+)*\\.", "1".repeat(10_000)],
    ["^(a+)+b(a+)+$", `${"a".repeat(5_000)}b${"a".repeat(4_999)}!`],
    // Linear in the subject, but with a large program: every instruction is a thread alive at every character.
    ["(.*a){1000}", `${"a".repeat(10_000)}!`],
    ["(.*a){330}$", `${"a".repeat(10_000)}!`],
    ["(.*a){200}$", `${"a".repeat(10_000)}!`],
    ["[\\s\\S]{1000}", `${"ab".repeat(5_000)}`],
    ["(?:a?){1000}a{1000}", `${"a".repeat(10_000)}!`],
    ["(.*.*a){150}", `${"a".repeat(10_000)}!`],
  ];
  it.each(hostile)("%s is refused at registration or matches a 10,000-character adversarial subject in under 50 ms", (pattern, subject) => {
    let matcher;
    try {
      matcher = compileMatcher(pattern, "hostile");
    } catch (error) {
      expect(error).toBeInstanceOf(RegistrationError);
      return;
    }
    expect(subject.length).toBeGreaterThanOrEqual(10_000);
    expect(timed(() => matcher.matchSubject(subject))).toBeLessThan(budgetMs);
  });

  it("still answers what JavaScript answers on those shapes, on short subjects", () => {
    for (const [pattern] of hostile) {
      let matcher;
      try {
        matcher = compileMatcher(pattern, "h");
      } catch {
        continue; // refused at registration
      }
      for (const subject of ["aaa", "aab", "xxy", "word word", "a.b@c.de", "111.", "aba"]) {
        expect(matcher.matchSubject(subject), `${pattern} on ${subject}`).toBe(new RegExp(pattern).test(subject));
      }
    }
  });
});

describe("a RegExp the linear-time engine cannot run", () => {
  const refused: [string, RegExp][] = [
    ["^(Edit)\\1$", /uses a back-reference \(\\1\).*repeat the group's text instead, or use a function matcher/],
    ["^(?<t>Bash)\\k<t>$", /uses a back-reference \(\\k<t>\)/],
    ["^mcp__(?!github)", /uses a lookahead \(\(\?!github\)\).*rewrite it without one/],
    ["(?<=mcp__)write", /uses a lookbehind/],
    ["a{1001}", new RegExp(`more than ${MAX_REPEAT} times`)],
    ["[\\ud800]", /surrogate/],
    ["(.*a){1000}", new RegExp(`compiles to 3002 instructions, over the limit of ${MAX_PROGRAM}.*a names list`)],
    ["[\\s\\S]{1000}", /instructions, over the limit/],
  ];
  it.each(refused)("%s is a registration error naming the hook, the field and how to rewrite it", (pattern, message) => {
    let error: unknown;
    try {
      compileMatcher(pattern, "guard");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RegistrationError);
    expect(error).toMatchObject({ hook: "guard", field: "match" });
    expect((error as Error).message).toMatch(/^hook "guard": match "/);
    expect((error as Error).message).toMatch(message);
  });

  it("is refused by stack.use, so a hook with one never registers", () => {
    const stack = createStack({ t: gate<string, string>({ name: "t", subject: (s) => s }) });
    expect(() => stack.use("t", { name: "la", match: "(?=x)x", before: () => undefined })).toThrow(
      /hook "la": match "\(\?=x\)x" uses a lookahead/,
    );
  });

  it("is refused in a settings matcher, naming the file and pointer", () => {
    const settings = { hooks: { PreToolUse: [{ matcher: "^(Bash)\\1", hooks: [{ type: "command", command: "true" }] }] } };
    expect(() => fromClaudeSettings([{ file: "user.json", settings }])).toThrow(
      /^user\.json: \/hooks\/PreToolUse\/0\/matcher: .*back-reference/,
    );
  });

  it("accepts a long list of literal names, and refuses a long counted repeat", () => {
    const names = Array.from({ length: 40 }, (_, i) => `mcp__srv${i}__tool_${i}`).join("|");
    expect(compileLinearRegExp(`^(?:${names})$`).test("mcp__srv7__tool_7")).toBe(true);
    expect(() => compileLinearRegExp("(?:ab){300}")).toThrow(/compiles to \d+ instructions/);
  });

  it("keeps JavaScript's syntax errors as they were", () => {
    expect(() => compileMatcher("(?i)Bash", "h")).toThrow(/is not a valid regular expression/);
    expect(() => compileMatcher("Bash|*", "h")).toThrow(/is not a valid regular expression/);
  });
});

describe("a RegExp keeps its JavaScript meaning", () => {
  const cases: [string, string, boolean][] = [
    ["Edit.*", "NotebookEdit", true],
    ["^Edit$", "NotebookEdit", false],
    ["\\s", "\u00a0", true], // JavaScript's \s includes no-break space; RE2's does not
    ["^.$", "\r", false], // JavaScript's . excludes \r; RE2's does not
    ["[^]", "\n", true],
    ["[]", "a", false],
    ["\\p{L}", "p{L}", true], // without the u flag, \p is a p
    ["\\x{41}", "x".repeat(41), true], // without the u flag, \x{41} is x repeated 41 times
    ["[[:alpha:]]", "x]", false], // a class of [ : a l p h, then a ]: JavaScript's reading, not POSIX's
    ["[[:alpha:]]", ":]", true],
    ["\\Q.\\E", "Q.E", true],
    ["^😀$", "😀", true],
    ["(?<tool>Bash)", "Bash", true],
    ["\\cJ", "\n", true],
    ["\\0", "\0", true],
  ];
  it.each(cases)("%j on %j → %s", (pattern, subject, expected) => {
    expect(new RegExp(pattern).test(subject)).toBe(expected);
    expect(compileLinearRegExp(pattern).test(subject)).toBe(expected);
  });

  // Random patterns over atoms of JavaScript's syntax, against random ASCII subjects: the same answers.
  const atom = fc.constantFrom(
    "a",
    "b",
    ".",
    "\\w",
    "\\W",
    "\\d",
    "\\s",
    "\\S",
    "[ab]",
    "[^a]",
    "[a-c]",
    "[\\d_]",
    "a*",
    "b+",
    "a?",
    "(?:ab)",
    "(a|b)",
    "^",
    "$",
    "\\b",
    "\\B",
    "a{1,2}",
    "b{2}",
    "x*?",
    "_",
    "-",
    "\\.",
    "[.]",
  );
  const pattern = fc.array(atom, { minLength: 1, maxLength: 6 }).map((as) => as.join(""));
  const subject = fc.string({ unit: fc.constantFrom("a", "b", "c", "_", " ", "-", ".", "1", "\n", "\t"), maxLength: 12 });
  test.prop([pattern, subject], { numRuns: 1000 })("answers what new RegExp(p).test(s) answers", (p, s) => {
    expect(compileLinearRegExp(p).test(s)).toBe(new RegExp(p).test(s));
  });
});
