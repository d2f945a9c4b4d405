import { fc, test } from "@fast-check/vitest";
import picomatch from "picomatch";
import { describe, expect } from "vitest";
import { compileGlob, PICOMATCH_OPTIONS } from "../../../src/core/match/glob.ts";
import { compileMatcher } from "../../../src/core/match/matcher.ts";
import { splitShellCommand } from "../../../src/core/match/shell.ts";
import { budgetMs, timed } from "../../support/timing.ts";

const rm = compileMatcher("Bash(rm *)", "no-rm");

// Benign commands: no `rm` word anywhere, arguments plain or quoted.
// A name that may be standard input or a descriptor from some working directory (`0`, `fd/3`,
// `-f0`) is left out: `make -f 0` run in /dev/fd reads its makefile from standard input, so the
// analysis rightly calls it opaque, and an opaque command matches every deny rule.
const descriptorLike = /(?:^|\/|^-f)(?:stdin|0)$|(?:^|\/|^-f)(?:dev|proc|fd|self|thread-self|\d+)(?:\/|$)/;
const word = fc
  .stringMatching(/^[a-z0-9._/-]{1,8}$/)
  .filter((w) => ((w !== "rm" && !w.startsWith("-")) || w.length > 1) && !descriptorLike.test(w));
const argument = fc.oneof(
  word,
  word.map((w) => `"${w} ${w}"`),
  word.map((w) => `'${w};${w}'`),
  word.map((w) => `--${w}`),
);
const benign = fc
  .tuple(
    // npm reads options before `--` as settings, some of which name what runs (`--g` is `--global`).
    fc.constantFrom("ls", "echo", "git status", "npm test --", "cat", "grep", "cd", "pwd", "make", "node"),
    fc.array(argument, { maxLength: 4 }),
  )
  .map(([head, args]) => [head, ...args].join(" "));
const separator = fc.constantFrom("&&", "||", ";", "|", "&", "\n", "|&", " && \n ");

describe("shell conditions, for all inputs", () => {
  test.prop([benign, separator])("a Bash(rm *) condition catches rm after any benign command and separator", (prefix, sep) => {
    expect(rm.test("Bash", {}, () => `${prefix} ${sep} rm -rf x`)).toBe(true);
  });

  const nest = fc.constantFrom(
    (c: string) => `echo $( ${c})`, // `$((` would start arithmetic, as in bash
    (c: string) => `echo \`${c.replaceAll("\\", "\\\\").replaceAll("`", "\\`")}\``, // nested backticks must be escaped
    (c: string) => `( ${c} )`, // `((` would be arithmetic, as in bash
    (c: string) => `bash -c '${c.replaceAll("'", `'\\''`)}'`,
    (c: string) => `sudo ${c}`,
    (c: string) => `env FOO=1 ${c}`, // after a wrapper, `FOO=1` alone would be the program it runs
    (c: string) => `timeout 5 ${c}`,
  );
  test.prop([benign, nest, nest])(
    "a Bash(rm *) condition catches rm nested in substitutions, subshells and wrappers",
    (prefix, outer, inner) => {
      expect(rm.test("Bash", {}, () => `${prefix} && ${outer(inner("rm -rf x"))}`)).toBe(true);
    },
  );

  test.prop([fc.array(benign, { minLength: 1, maxLength: 4 }), separator])(
    "benign commands alone never match Bash(rm *)",
    (commands, sep) => {
      expect(rm.test("Bash", {}, () => commands.join(` ${sep} `))).toBe(false);
    },
  );

  test.prop([fc.string({ unit: "binary", maxLength: 200 })])("splitting arbitrary text never throws and stays fast", (text) => {
    expect(timed(() => splitShellCommand(text))).toBeLessThan(budgetMs);
  });
});

describe("arbitrary unicode subjects and details never throw", () => {
  const specs = [
    "*",
    "Bash",
    "Edit|Write",
    "^mcp__.*",
    "Bash(rm *)",
    "Edit(src/**)",
    "Read(*.env)",
    "WebFetch(domain:*.example.com)",
    "Agent(Explore)",
  ];
  test.prop([
    fc.constantFrom(...specs),
    fc.option(fc.string({ unit: "binary" }), { nil: undefined }),
    fc.option(fc.string({ unit: "binary" }), { nil: undefined }),
  ])("matchSubject and test return booleans", (spec, subject, detail) => {
    const m = compileMatcher(spec, "h");
    expect(typeof m.matchSubject(subject)).toBe("boolean");
    expect(typeof m.test(subject, {}, () => detail)).toBe("boolean");
    expect(typeof m.test(spec.split("(")[0], {}, () => detail)).toBe("boolean");
  });

  test.prop([fc.string({ unit: "binary", maxLength: 64 })])("any string spec either compiles or is a registration error", (spec) => {
    try {
      compileMatcher(spec, "h");
    } catch (error) {
      expect((error as Error).name).toBe("RegistrationError");
    }
  });
});

describe("matching stays within a time budget (no ReDoS)", () => {
  // Glob-ish patterns over a small alphabet, so stars meet repeated literals: the worst case for backtracking.
  const globChar = fc.constantFrom("a", "a", "b", "*", "*", "?", "/", "**/", "[ab]", "{", "}", ",", "(", ")", "!", "+", "@", ".");
  const glob = fc.array(globChar, { minLength: 1, maxLength: 24 }).map((cs) => cs.join(""));
  const pathLike = fc
    .tuple(fc.constantFrom("a", "a/", "ab", "."), fc.integer({ min: 1, max: 2000 }), fc.constantFrom("", "c", "/c", "b"))
    .map(([unit, n, tail]) => unit.repeat(n) + tail);

  test.prop([glob, pathLike], { numRuns: 300 })(
    "a path condition matches any glob against long adversarial paths in under 50 ms",
    (pattern, path) => {
      let condition: ((p: string) => boolean) | undefined;
      try {
        condition = compileGlob(pattern);
      } catch {
        return; // an invalid class is a registration error, tested elsewhere
      }
      expect(timed(() => condition(path))).toBeLessThan(budgetMs);
    },
  );

  const shellPattern = fc
    .array(fc.constantFrom("a", "a", "b", "*", " ", "*", "-"), { minLength: 1, maxLength: 24 })
    .map((cs) => cs.join(""));
  test.prop([shellPattern, pathLike], { numRuns: 300 })(
    "a shell condition matches any pattern against long commands in under 50 ms",
    (pattern, command) => {
      if (pattern.trim() === "" || pattern.trim() === "*") return;
      const m = compileMatcher(`Bash(${pattern})`, "h");
      expect(timed(() => m.test("Bash", {}, () => command))).toBeLessThan(budgetMs);
    },
  );

  // RegExp matchers are the user's own (trusted config); we check that generated ones without nested
  // quantifiers stay fast, and that compilation never hangs.
  const regexAtom = fc.constantFrom("a", "b", ".", "\\w", "[ab]", "a*", ".*", "b+", "a?", "(?:ab)", "^", "$", "|");
  const regex = fc.array(regexAtom, { minLength: 1, maxLength: 8 }).map((as) => `${as.join("")}_`);
  test.prop([regex, fc.string({ unit: fc.constantFrom("a", "b", "_"), maxLength: 500 })], { numRuns: 300 })(
    "a RegExp matcher without nested quantifiers tests long subjects in under 50 ms",
    (pattern, subject) => {
      let m;
      try {
        m = compileMatcher(pattern, "h");
      } catch {
        return;
      }
      expect(timed(() => m.matchSubject(subject))).toBeLessThan(budgetMs);
    },
  );

  test("the measured picomatch worst case is fast here", () => {
    const condition = compileGlob("*a*a*a*a*a*a*a*a*a*b");
    expect(timed(() => condition("a".repeat(4096)))).toBeLessThan(budgetMs);
    const deep = compileGlob("**/a/**/a/**/a/**/b");
    expect(timed(() => deep("a/".repeat(2048)))).toBeLessThan(budgetMs);
  });
});

describe("globs where we differ from picomatch on purpose", () => {
  test("a star may match nothing after a dot, in a whole `*.*` or `**/*.*` as anywhere else", () => {
    for (const [p, target] of [
      ["*.*", "a."],
      ["**/*.*", "x/a."],
      ["x/*.*", "x/a."],
    ] as const)
      expect(compileGlob(p)(target)).toBe(true);
    expect(picomatch("x/*.*", PICOMATCH_OPTIONS)("x/a.")).toBe(true); // picomatch's parser agrees; only its fast path differs
    expect(picomatch("**/*.*", PICOMATCH_OPTIONS)("x/a.")).toBe(false);
  });

  test("a dot is a dot before a segment of three stars", () => {
    expect(compileGlob("b./**/***")("ba/-")).toBe(false);
    expect(compileGlob("b./**/***")("b./-")).toBe(true);
    expect(picomatch("b./**/***", PICOMATCH_OPTIONS)("ba/-")).toBe(true); // picomatch reads the dot as any character there
  });
});

describe("globs agree with picomatch", () => {
  // Segments over an alphabet where picomatch's semantics are the reference (no . or .. segments).
  const segmentChar = fc.constantFrom("a", "b", ".", "*", "?", "[ab]", "[^a]", "-", "\\*");
  const patternSegment = fc.oneof(
    { weight: 5, arbitrary: fc.array(segmentChar, { minLength: 1, maxLength: 4 }).map((cs) => cs.join("")) },
    { weight: 1, arbitrary: fc.constant("**") },
  );
  const pattern = fc.array(patternSegment, { minLength: 2, maxLength: 4 }).map((s) => s.join("/"));
  const pathSegment = fc.stringMatching(/^[ab.-]{1,4}$/).filter((s) => s !== "." && s !== "..");
  const path = fc.array(pathSegment, { minLength: 1, maxLength: 5 }).map((s) => s.join("/"));
  // Two known, deliberate differences. Picomatch lets `a/**` match `a` but not `*/**` match `a`; we
  // let both match. And picomatch compiles the whole patterns `*.*` and `**/*.*` by a fast path
  // that wants a character after the dot (`a.` fails), while its parser lets `x/*.*` match `x/a.`;
  // we treat `*` alike everywhere, as bash and minimatch do (found by this property, seed -504401265).
  // Patterns with three stars in a row are left to the example above (picomatch misreads a dot before them).
  const quirk = /(?:^|\/)[^/]*\*\/\*\*(?:\/|$)/;
  const fastPaths = new Set(["*.*", "**/*.*"]);
  test.prop([pattern, path], { numRuns: 2000 })("compileGlob(p)(path) equals picomatch(p, options)(path)", (p, target) => {
    fc.pre(!quirk.test(p) && !fastPaths.has(p) && !p.includes("***") && !p.split("/").some((s) => s === "." || s === ".."));
    expect(compileGlob(p)(target)).toBe(picomatch(p, PICOMATCH_OPTIONS)(target));
  });
});
