import { describe, expect, it, vi } from "vitest";
import { RegistrationError } from "../../../src/core/errors.ts";
import { compileMatcher, MAX_PATTERN_LENGTH } from "../../../src/core/match/matcher.ts";
import { createStack } from "../../../src/core/stack.ts";
import { gate } from "../../../src/core/point.ts";
import { Reject } from "../../../src/core/action.ts";

const matches = (spec: unknown, subject: string | undefined, detail?: string): boolean =>
  compileMatcher(spec, "h").test(subject, {}, () => detail);

describe("a matcher follows Claude Code's matcher table", () => {
  // [match, subject, detail, expected, why]
  const golden: [unknown, string | undefined, string | undefined, boolean, string][] = [
    [undefined, "Bash", undefined, true, "omitted matches all"],
    ["", "Read", undefined, true, "empty matches all"],
    ["*", "anything", undefined, true, "star matches all"],
    ["Bash", "Bash", undefined, true, "an exact name"],
    ["Bash", "BashOutput", undefined, false, "exact names are not prefixes"],
    ["Bash", "bash", undefined, false, "exact names are case-sensitive"],
    ["Edit|Write", "Write", undefined, true, "a | list"],
    ["Edit, Write", "Edit", undefined, true, "a comma list with spaces"],
    [" Edit ,Write ", "Write", undefined, true, "list entries are trimmed"],
    ["code-reviewer", "senior-code-reviewer", undefined, false, "hyphenated names are exact (v2.1.195+)"],
    ["code-reviewer", "code-reviewer", undefined, true, "hyphenated name"],
    ["mcp__memory", "mcp__memory__create", undefined, false, "a bare server prefix is an exact name and matches no tool"],
    ["mcp__memory__.*", "mcp__memory__create", undefined, true, "regex for every tool of a server"],
    ["mcp__.*__write.*", "mcp__fs__write_file", undefined, true, "regex across servers"],
    ["mcp__(github|gitlab)__.*", "mcp__gitlab__merge", undefined, true, "a | inside a group is the regex's own"],
    ["Edit.*", "NotebookEdit", undefined, true, "regex is unanchored, as Claude Code documents"],
    ["^Edit$", "NotebookEdit", undefined, false, "anchored regex"],
    ["^Notebook", "NotebookRead", undefined, true, "prefix regex"],
    ["^my-plugin:reviewer$", "my-plugin:reviewer", undefined, true, "a colon puts a plugin-scoped name on the regex path"],
    ["Bash(rm *)", "Bash", "rm -rf /tmp/build", true, "the hooks doc example"],
    ["Bash(rm *)", "Bash", "npm test", false, "no subcommand matches"],
    ["Bash(rm *)", "Read", "rm -rf /", false, "the name part must match too"],
    ["Bash(git *)", "Bash", "FOO=bar git push", true, "leading assignments are stripped"],
    ["Bash(git *)", "Bash", "npm test && git push", true, "each subcommand is checked"],
    ["Bash(rm *)", "Bash", "echo $(rm -rf /)", true, "commands inside $() are checked"],
    ["Bash(rm *)", "Bash", "echo `rm -rf /`", true, "commands inside backticks are checked"],
    ["Bash(rm *)", "Bash", "echo $(date)", false, "no subcommand matches rm *"],
    ["Bash(git push *)", "Bash", "echo $(date)", true, "patterns saying more than the name run anyway on $()"],
    ["Bash(ls *)", "Bash", "ls -la", true, "word boundary: ls with arguments"],
    ["Bash(ls *)", "Bash", "lsof", false, "word boundary: not lsof"],
    ["Bash(ls *)", "Bash", "ls", true, "a trailing ' *' also matches the bare command"],
    ["Bash(ls*)", "Bash", "lsof", true, "no space, no boundary"],
    ["Bash(npm run build)", "Bash", "npm run build", true, "an exact command"],
    ["Bash(npm run build)", "Bash", "npm run build --watch", false, "an exact command only"],
    ["Bash(git * main)", "Bash", "git checkout main", true, "a middle wildcard"],
    ["Bash(* --version)", "Bash", "node --version", true, "a suffix match"],
    ["Bash(npm run test:*)", "Bash", "npm run test -- -t x", true, "the legacy :* matches the prefix and more words"],
    ["Bash(npm run test:*)", "Bash", "npm run test", true, "the legacy :* matches the bare prefix"],
    ["Bash(npm run test:*)", "Bash", "npm run test:unit", false, "the legacy :* ends at a word, as in Claude Code"],
    ["Bash(npm run test:*)", "Bash", "npm run testx", false, "the legacy :* is not a bare prefix of a word"],
    ["Bash(ls:*)", "Bash", "lsof -i", false, "ls:* does not match lsof"],
    ["Bash(git * log:*)", "Bash", "git -C x log", false, "a star before :* is a plain character"],
    ["Bash(npm run test:*)", "Bash", "npm run lint", false, "the legacy :* prefix must match"],
    ["Bash(*)", "Bash", undefined, true, "Bash(*) is Bash"],
    ["Edit(*.ts)", "Edit", "src/core/a.ts", true, "a slash-free glob matches the file name at any depth"],
    ["Edit(*.ts)", "Edit", "src/core/a.js", false, "glob on the extension"],
    ["Edit(src/**)", "Edit", "src/a/b.ts", true, "a directory glob"],
    ["Edit(src/**)", "Edit", "lib/src/a.ts", false, "src/** is anchored at the base (v2.1.214+)"],
    ["Edit(**/src/**)", "Edit", "lib/src/a.ts", true, "**/src/** matches src at any depth"],
    ["Read(./.env)", "Read", ".env", true, "./ is the base directory"],
    ["Read(./.env)", "Read", "config/.env", false, "./ anchors the pattern"],
    ["Edit(src/**)", "Write", "src/a.ts", true, "Edit(…) covers every tool that writes files"],
    ["Write(src/**)", "NotebookEdit", "src/a.ipynb", true, "Write(…) is read as Edit(…)"],
    ["Read(src/**)", "Write", "src/a.ts", false, "Read(…) covers only tools that read"],
    ["Read(*)", "Grep", undefined, true, "Read(*) is every tool that reads"],
    ["Grep(src/**)", "Read", "src/a.ts", false, "another name covers that tool only"],
    ["WebFetch(domain:example.com)", "WebFetch", "https://example.com/docs", true, "a domain condition"],
    ["WebFetch(domain:example.com)", "WebFetch", "https://evil.com/?example.com", false, "the host, not the text, is compared"],
  ];
  it.each(golden)("%j on %s with detail %j → %s (%s)", (spec, subject, detail, expected) => {
    expect(matches(spec, subject, detail)).toBe(expected);
  });

  it("reports the pattern as written and whether it needs the input", () => {
    expect(compileMatcher(undefined, "h")).toMatchObject({ source: "*", all: true, needsInput: false });
    expect(compileMatcher("", "h")).toMatchObject({ source: "", all: true, needsInput: false });
    expect(compileMatcher("Edit|Write", "h")).toMatchObject({ source: "Edit|Write", all: false, needsInput: false });
    expect(compileMatcher("^Edit", "h")).toMatchObject({ all: false, needsInput: false });
    expect(compileMatcher("Bash(rm *)", "h")).toMatchObject({ source: "Bash(rm *)", all: false, needsInput: true });
    expect(compileMatcher("Bash(*)", "h")).toMatchObject({ all: false, needsInput: false });
  });

  it("is frozen", () => {
    expect(Object.isFrozen(compileMatcher("Bash(rm *)", "h"))).toBe(true);
  });
});

describe("a matcher's subject check", () => {
  it("lets a Name(pattern) matcher through on the name alone, leaving the detail to test", () => {
    const m = compileMatcher("Bash(rm *)", "h");
    expect(m.matchSubject("Bash")).toBe(true);
    expect(m.matchSubject("Read")).toBe(false);
  });

  it("passes an undefined subject only for match-all and function matchers", () => {
    expect(compileMatcher("*", "h").matchSubject(undefined)).toBe(true);
    expect(compileMatcher(() => true, "h").matchSubject(undefined)).toBe(true);
    for (const spec of ["Bash", "Edit|Write", ".*", "^$", "Bash(rm *)"]) {
      expect(compileMatcher(spec, "h").matchSubject(undefined), spec).toBe(false);
      expect(
        compileMatcher(spec, "h").test(undefined, {}, () => "rm x"),
        spec,
      ).toBe(false);
    }
  });
});

describe("a matcher's detail is lazy", () => {
  it("is never computed for name-only matchers", () => {
    const detail = vi.fn(() => "rm x");
    compileMatcher("Bash", "h").test("Bash", {}, detail);
    compileMatcher("^Ba", "h").test("Bash", {}, detail);
    expect(detail).not.toHaveBeenCalled();
  });

  it("is not computed when the name part fails, and computed once when it passes", () => {
    const detail = vi.fn(() => "ls && rm x; rm y");
    const m = compileMatcher("Bash(rm *)", "h");
    expect(m.test("Read", {}, detail)).toBe(false);
    expect(detail).not.toHaveBeenCalled();
    expect(m.test("Bash", {}, detail)).toBe(true);
    expect(detail).toHaveBeenCalledTimes(1);
  });

  it("treats a missing detail as no argument to match, and a non-string one as one it cannot read", () => {
    const m = compileMatcher("Edit(src/**)", "h");
    expect(m.test("Edit", {}, () => undefined)).toBe(false);
    expect(m.test("Edit", {}, () => 42 as unknown as string)).toBe(true);
  });
});

describe("a Name(pattern) matcher given a detail that is present but not a string", () => {
  // A point's detail function may be untyped JavaScript and a tool's input is written by the model.
  const unreadable: unknown[] = [["rm", "-rf", "/"], 5, { toString: () => "rm -rf /" }, true];
  const testWith = (spec: string, subject: string, detail: unknown) => compileMatcher(spec, "h").test(subject, {}, () => detail as string);

  it("matches, as it matches a command it cannot read, so a deny condition is not skipped", () => {
    for (const detail of unreadable) {
      for (const [spec, subject] of [
        ["Bash(rm *)", "Bash"],
        ["Write(/etc/**)", "Write"],
        ["WebFetch(domain:evil.com)", "WebFetch"],
      ] as const) {
        expect(testWith(spec, subject, detail), `${spec} ${JSON.stringify(detail)}`).toBe(true);
      }
    }
  });

  it("still does not match when there is no detail at all", () => {
    expect(testWith("Bash(rm *)", "Bash", undefined)).toBe(false);
    expect(testWith("Bash(rm *)", "Bash", null)).toBe(false);
    expect(testWith("Write(/etc/**)", "Write", undefined)).toBe(false);
  });

  it("lets a deny hook on a custom point reject the call, as a detail function that throws does", async () => {
    const stackWith = (detail: (input: { command: unknown }) => string | undefined) =>
      createStack({ t: gate<{ command: unknown }, string>({ name: "t", subject: () => "Bash", detail }) }).use("t", {
        name: "deny",
        match: "Bash(rm *)",
        before: () => Reject("denied"),
      });
    for (const command of [["rm", "-rf", "/"], 5, { rm: true }]) {
      const outcome = await stackWith((input) => input.command as string).run("t", { command }, () => "ran");
      expect(outcome, JSON.stringify(command)).toMatchObject({ _tag: "Rejected" });
    }
    expect(await stackWith((input) => input.command as string).run("t", { command: undefined }, () => "ran")).toMatchObject({
      _tag: "Completed",
    });
    expect(
      await createStack({ t: gate<{ command: unknown }, string>({ name: "t", subject: () => "Bash" }) })
        .use("t", { name: "deny", match: "Bash(rm *)", before: () => Reject("denied") })
        .run("t", { command: "rm x" }, () => "ran"),
    ).toMatchObject({ _tag: "Completed" });
  });
});

describe("a function matcher", () => {
  it("receives the subject and the input and needs the input", () => {
    const calls: unknown[][] = [];
    const isBashOne = (subject: string | undefined, input: unknown): boolean => {
      calls.push([subject, input]);
      return subject === "Bash" && (input as { x: number }).x === 1;
    };
    const m = compileMatcher(isBashOne, "h");
    expect(m).toMatchObject({ all: false, needsInput: true, source: "function isBashOne" });
    expect(m.matchSubject("anything")).toBe(true);
    expect(m.test("Bash", { x: 1 }, () => undefined)).toBe(true);
    expect(calls).toEqual([["Bash", { x: 1 }]]);
    expect(m.test("Bash", { x: 2 }, () => undefined)).toBe(false);
  });

  it("throws a TypeError at test time when it returns a Promise or a non-boolean", () => {
    expect(() => compileMatcher(async () => true, "h").test("x", {}, () => undefined)).toThrow(/Promise.*boolean synchronously/);
    expect(() => compileMatcher(() => "yes", "h").test("x", {}, () => undefined)).toThrow(TypeError);
  });
});

describe("an invalid match is a registration error naming the hook and the field", () => {
  const invalid: [unknown, RegExp][] = [
    [42, /must be a string, a function or a match object .*got number/],
    [null, /got null/],
    [{ tool: "Bash" }, /match\.tool is not a match form/],
    [["Bash"], /got a list/],
    ["(unclosed", /not a valid regular expression/],
    ["Bash|*", /not a valid regular expression/],
    [" | , ", /names nothing/],
    ["Bash()", /empty condition/],
    ["Edit|Write(src/**)", /names several tools in one condition/],
    ["Bash(git push*)|Write", /lists a condition among other matches.*\{ any: \["Bash\(git push\*\)", "Write"\] \}$/],
    ["Read, Bash(rm *) | Edit", /\{ any: \["Read", "Bash\(rm \*\)", "Edit"\] \}$/],
    ["Bash (rm *)", /"Bash \(rm \*\)" has a blank between the tool name and "\("; write "Bash\(rm \*\)"$/],
    ["Read  (src/**)", /has a blank between the tool name and "\("; write "Read\(src\/\*\*\)"$/],
    ["Bash(rm *", /"Bash\(rm \*" has no closing parenthesis; write "Bash\(rm \*\)"$/],
    ["Bash (rm *", /"Bash \(rm \*" has no closing parenthesis; write "Bash\(rm \*\)"$/],
    ["WebFetch(domain:)", /invalid domain/],
    ["WebFetch(domain:evil.com/path)", /invalid domain/],
    ["x".repeat(MAX_PATTERN_LENGTH + 1), /limit is 1024/],
  ];
  it.each(invalid)("%j is refused (%s)", (spec, problem) => {
    let error: unknown;
    try {
      compileMatcher(spec, "no-rm");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RegistrationError);
    expect(error).toBeInstanceOf(TypeError);
    expect(error).toMatchObject({ hook: "no-rm", field: expect.stringMatching(/^match\b/) });
    expect((error as Error).message).toMatch(/^hook "no-rm": match[. ]/);
    expect((error as Error).message).toMatch(problem);
  });
});
