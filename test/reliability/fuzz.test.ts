/**
 * Fuzzing at volume (fast-check). Each property runs a few seconds by default; `FUZZ_RUNS=n`
 * runs every property n times instead. Every input tried is counted, and the counts are written
 * to `$RELIABILITY_OUT/fuzz-fuzz.json` for the reliability report.
 *
 * 1. anything a hook throws or returns, in every phase, sync and async, on gates and observers;
 * 2. arbitrary JSON from external hooks through the answer schemas, prototype keys included;
 * 3. arbitrary unicode in hook names, reasons and paths;
 * 4. generated matcher patterns against adversarial subjects, with a time budget;
 * 5. shell commands built to hide `rm -rf` from a `Bash(rm *)` condition;
 * 6. shell metacharacters in tool input sent to a real command hook.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fc } from "@fast-check/vitest";
import { afterAll, describe, expect, it } from "vitest";
import { createAgentStack } from "../../src/agent/index.ts";
import { HookError, Outcome, Reject, RegistrationError, Trace, compileMatcher, isHookAction } from "../../src/core/index.ts";
import type { Hook } from "../../src/core/index.ts";
import { httpAnswer, readAnswerText } from "../../src/executors/answer.ts";
import { commandHook } from "../../src/executors/command.ts";
import { ExecutorError } from "../../src/executors/errors.ts";
import type { ClaudeEvent } from "../../src/executors/events.ts";
import { externalHook } from "../../src/executors/external.ts";
import { parseJson } from "../../src/executors/json.ts";
import { decodeVerdict } from "../../src/executors/schemas.ts";
import { fixture, tempDir } from "../executors/helpers.ts";
import { call, fuzzRuns, fuzzTimeout, isWellFormed, newStack, tried, writeTally, type Call, type Result } from "./helpers.ts";
import { expectNoUnhandledRejections } from "./no-unhandled.ts";
import { budgetMs, timed } from "../support/timing.ts";

expectNoUnhandledRejections();
afterAll(() => writeTally("fuzz"));

// ---------------------------------------------------------------------------------------------
// 1. Anything thrown or returned by a hook
// ---------------------------------------------------------------------------------------------

type Phase = "before" | "after" | "around" | "recover" | "observe";
const anything = fc.anything({
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withObjectString: true,
  withSparseArray: true,
  withTypedArray: true,
  withUnicodeString: true,
  maxDepth: 3,
});

/** The hook under test: it throws or returns `value` in `phase`, sync or async (an around calls next() first). */
const hookFor = (phase: Phase, isAsync: boolean, mode: "throw" | "return", value: unknown, timed: boolean): Hook<Call, Result> => {
  const act = (): unknown => {
    if (mode === "throw") throw value;
    return value;
  };
  const fn = isAsync ? async () => act() : act;
  const base = { name: "fuzzed", ...(timed ? { timeoutMs: 1000 } : {}) };
  if (phase === "around")
    return {
      ...base,
      around: async (_ctx, next) => {
        await next();
        return fn() as never;
      },
    };
  return { ...base, [phase]: fn } as Hook<Call, Result>;
};

describe("1. anything a hook throws or returns", () => {
  it(
    "settles every run once with a typed outcome, never throws, and classifies the failure",
    async () => {
      const arb = fc.record({
        phase: fc.constantFrom<Phase>("before", "after", "around", "recover", "observe"),
        isAsync: fc.boolean(),
        mode: fc.constantFrom<"throw" | "return">("throw", "return"),
        point: fc.constantFrom<"tool" | "watch">("tool", "watch"),
        value: anything,
        observed: fc.boolean(),
        timed: fc.boolean(),
      });
      await fc.assert(
        fc.asyncProperty(arb, async ({ phase, isAsync, mode, point, value, observed, timed }) => {
          tried("hook values: thrown or returned, every phase");
          const events: string[] = [];
          let stack = newStack().use(point, hookFor(phase, isAsync, mode, value, timed));
          if (observed) stack = stack.use(point, { name: "counter", observe: (e) => void events.push(e.runId) });
          const opError = new Error("operation failed");
          const op =
            phase === "recover"
              ? () => {
                  throw opError;
                }
              : (c: Call) => ({ content: `ran ${c.name}` });
          let promise: Promise<Outcome<Result>>;
          try {
            promise = stack.run(point, call(), op as never);
          } catch (error) {
            throw new Error(`stack.run threw synchronously: ${String(error)}`);
          }
          const outcome = await promise;
          expect(Outcome.is(outcome)).toBe(true);
          await stack.flush();
          if (observed) expect(events).toHaveLength(1);

          const failsOpen = point === "watch";
          const ok = phase === "recover" ? Outcome.failed(opError) : Outcome.completed({ content: "ran Read" });
          if (phase === "observe") {
            // Observers run after the run settled: whatever they do, the outcome is the operation's.
            expect(outcome).toEqual(ok);
            if (mode === "throw") expect(stack.stats.observerErrors).toBe(1);
            return;
          }
          const failed = mode === "throw" || (value !== undefined && !isHookAction(value) && !(phase === "around" && Outcome.is(value)));
          if (!failed) return; // a valid action (rare from fc.anything) is the hook's decision, not a failure
          if (failsOpen) {
            expect(outcome).toEqual(ok);
            expect(stack.stats.failOpen).toBe(1);
          } else {
            expect(outcome._tag).toBe("Rejected");
            const cause = (outcome as { cause?: HookError }).cause;
            expect(cause).toBeInstanceOf(HookError);
            expect(cause?.kind).toBe(mode === "throw" ? "threw" : "invalid-action");
            if (mode === "throw") expect(Object.is(cause?.cause, value)).toBe(true);
          }
        }),
        { numRuns: fuzzRuns(2000) },
      );
    },
    fuzzTimeout(fuzzRuns(2000), 1),
  );

  // Values no generator makes: getters and proxies that throw when looked at. A run must still
  // settle with an Outcome (before 2058b5a, twelve of these made the run's promise reject).
  const hostile: [string, () => unknown][] = [
    [
      "a throwing then getter",
      () => ({
        get then() {
          throw new Error("then getter");
        },
      }),
    ],
    [
      "a throwing _tag getter",
      () => ({
        get _tag() {
          throw new Error("tag getter");
        },
      }),
    ],
    [
      "a proxy that throws on every trap",
      () =>
        new Proxy(
          {},
          {
            get() {
              throw new Error("get");
            },
            has() {
              throw new Error("has");
            },
            getPrototypeOf() {
              throw new Error("getPrototypeOf");
            },
            ownKeys() {
              throw new Error("ownKeys");
            },
          },
        ),
    ],
    [
      "a revoked proxy",
      () => {
        const r = Proxy.revocable({}, {});
        r.revoke();
        return r.proxy;
      },
    ],
    [
      "a then that throws",
      () => ({
        then() {
          throw new Error("then throws");
        },
      }),
    ],
    [
      "a then that resolves twice",
      () => ({
        then(resolve: (v: unknown) => void) {
          resolve(undefined);
          resolve(Reject("late"));
        },
      }),
    ],
  ];
  for (const [label, make] of hostile)
    for (const phase of ["before", "after", "around"] as const)
      for (const mode of ["return", "throw"] as const)
        for (const isAsync of [false, true]) {
          const title = `settles with an Outcome when a${isAsync ? "n async" : " sync"} ${phase} hook ${mode === "throw" ? "throws" : "returns"} ${label}`;
          const body = async () => {
            tried("hook values: hostile objects");
            const stack = newStack().use("tool", hookFor(phase, isAsync, mode, make(), false));
            let outcome: unknown;
            try {
              outcome = await stack.run("tool", call(), () => ({ content: "" }));
            } catch (error) {
              outcome = { rejectedWith: error };
            }
            expect(Outcome.is(outcome)).toBe(true);
          };
          it(title, body);
        }
});

// ---------------------------------------------------------------------------------------------
// 2. Arbitrary JSON from external hooks
// ---------------------------------------------------------------------------------------------

/** JSON text with keys we choose, duplicates and `__proto__` included (JSON.stringify cannot write those). */
type Json = null | boolean | number | string | Json[] | { entries: [string, Json][] };
const dangerousKeys = ["__proto__", "constructor", "prototype"];
const schemaKeys = [
  "continue",
  "stopReason",
  "suppressOutput",
  "systemMessage",
  "decision",
  "reason",
  "hookSpecificOutput",
  "hookEventName",
  "permissionDecision",
  "permissionDecisionReason",
  "updatedInput",
  "additionalContext",
  "updatedToolOutput",
  "ok",
  "impossible",
  "polluted",
  "command",
];
const key = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...dangerousKeys) },
  { weight: 3, arbitrary: fc.constantFrom(...schemaKeys) },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
);
const { json } = fc.letrec<{ json: Json }>((tie) => ({
  json: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string({ maxLength: 12 }),
    fc.constantFrom("allow", "deny", "ask", "defer", "block", "approve", "PreToolUse"),
    fc.array(tie("json"), { maxLength: 4 }),
    fc.array(fc.tuple(key, tie("json")), { maxLength: 5 }).map((entries) => ({ entries })),
  ),
}));
const text = (v: Json): string =>
  v === null || typeof v !== "object"
    ? JSON.stringify(v)
    : Array.isArray(v)
      ? `[${v.map(text).join(",")}]`
      : `{${v.entries.map(([k, x]) => `${JSON.stringify(k)}:${text(x)}`).join(",")}}`;
/** Often inside a plausible PreToolUse envelope, so the updatedInput and decision paths are reached. */
const answerText = fc.oneof(
  json.map(text),
  fc
    .tuple(json, fc.constantFrom("allow", "deny", "ask", "defer"))
    .map(
      ([v, d]) =>
        `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"${d}","updatedInput":${text(v && typeof v === "object" && !Array.isArray(v) ? v : { entries: [["command", v]] })}}}`,
    ),
  fc
    .tuple(fc.constantFrom(...dangerousKeys), json)
    .map(
      ([k, v]) =>
        `{"${k}":{"polluted":true,"prototype":{"polluted":true}},"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"${k}":{"polluted":true},"command":${text(v)}}}}`,
    ),
);

const prototypeSnapshot = (): string => JSON.stringify(Object.getOwnPropertyNames(Object.prototype).sort());
const events: ClaudeEvent[] = ["PreToolUse", "PostToolUse", "Stop", "UserPromptSubmit", "SessionStart", "Notification"];

describe("2. arbitrary JSON from external hooks", () => {
  const before = prototypeSnapshot();

  it(
    "reads any answer into a typed result or an ExecutorError, and never touches a prototype",
    async () => {
      let seen = 0;
      const hook = externalHook({ event: "PreToolUse", name: "fuzzed-json", onNotice: () => {} }, 1000, async (request) => {
        void request;
        return readAnswerText("fuzzed-json", "PreToolUse", current);
      });
      let current = "";
      const stack = createAgentStack().use("toolCall", hook);
      await fc.assert(
        fc.asyncProperty(answerText, async (answer) => {
          tried("external JSON: answers through the schemas");
          for (const event of events) {
            try {
              readAnswerText("h", event, answer);
            } catch (error) {
              expect(error).toBeInstanceOf(ExecutorError);
            }
          }
          try {
            httpAnswer("h", "PreToolUse", 200, Buffer.from(answer));
          } catch (error) {
            expect(error).toBeInstanceOf(ExecutorError);
          }
          try {
            decodeVerdict("h", parseJson(answer));
          } catch (error) {
            expect(error).toBeInstanceOf(ExecutorError);
          }
          current = answer;
          let received: unknown;
          const outcome = await stack.run("toolCall", { id: "c", name: "Bash", input: { command: "ls" } }, (c) => {
            received = c;
            seen++;
            return { content: "ran" };
          });
          expect(Outcome.is(outcome)).toBe(true);
          if (outcome._tag === "Completed") {
            const input = (received as { input: object }).input;
            expect(Object.getPrototypeOf(input)).toBe(Object.prototype);
            for (const k of dangerousKeys) expect(Object.hasOwn(input, k)).toBe(false);
          }
          expect(({} as Record<string, unknown>).polluted).toBeUndefined();
          expect(Object.hasOwn(Object.prototype, "polluted")).toBe(false);
          expect(prototypeSnapshot()).toBe(before);
        }),
        { numRuns: fuzzRuns(1500) },
      );
      expect(seen).toBeGreaterThan(0);
    },
    fuzzTimeout(fuzzRuns(1500), 2),
  );
});

// ---------------------------------------------------------------------------------------------
// 3. Arbitrary unicode in names, reasons and paths
// ---------------------------------------------------------------------------------------------

const awkwardChar = fc.constantFrom(
  "\uD800",
  "\uDFFF",
  "\u0000",
  "\u200B",
  "\u200D",
  "\u202E",
  "\u2066",
  "\uFEFF",
  "\u001b",
  "e\u0301",
  "\u00e9",
  "а",
  "🛡️",
  "\u0085",
  "\u2028",
);
const unicodeText = fc.oneof(
  fc.string({ unit: "binary", maxLength: 24 }),
  fc.array(fc.oneof(awkwardChar, fc.string({ unit: "grapheme", maxLength: 3 })), { maxLength: 8 }).map((a) => a.join("")),
);
/** A path segment: no separators, glob characters or dot-only names, so a path rule can name it literally. */
const segment = unicodeText
  .map((s) => s.replace(/[/\\*?[\]{}()!@+]/g, "x"))
  .filter((s) => s.trim() !== "" && s !== "." && s !== ".." && !s.includes("\u0000"));

describe("3. arbitrary unicode in hook names, reasons and paths", () => {
  it(
    "registers or refuses a name, runs, rejects with the reason as given, traces and serialises well-formed JSON",
    async () => {
      await fc.assert(
        fc.asyncProperty(unicodeText, unicodeText, unicodeText, async (name, reason, path) => {
          tried("unicode: names, reasons and paths");
          let stack;
          try {
            stack = newStack().use("tool", { name, before: () => Reject(reason) });
          } catch (error) {
            expect(error).toBeInstanceOf(RegistrationError);
            expect(name.trim()).toBe("");
            return;
          }
          const trace = new Trace();
          const outcome = await stack.run("tool", call(name, { path }), () => ({ content: "" }), { trace });
          expect(outcome).toEqual({ _tag: "Rejected", reason, by: name });
          expect(typeof trace.format()).toBe("string");
          const serialised = JSON.stringify({ outcome, entries: trace.entries });
          expect(isWellFormed(serialised)).toBe(true);
          expect(JSON.parse(serialised).outcome.reason).toBe(reason);
          expect(stack.explain("tool", call(name, { path }))[0]?.hook).toBe(name);
        }),
        { numRuns: fuzzRuns(1000) },
      );
    },
    fuzzTimeout(fuzzRuns(1000), 1),
  );

  it(
    "matches path rules on canonical forms: NFC and NFD alike, through . and .., and only under the named directory",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          segment,
          // No NUL: no file can be named with one, so a path holding it is opaque (it matches every rule).
          unicodeText.map((s) => s.replace(/[/\\\0]/g, "_") || "f"),
          async (dir, file) => {
            tried("unicode: canonical path matching");
            const guard = newStack().use("tool", { name: "guard", match: `Read(${dir}/**)`, before: () => Reject("guarded") });
            const verdict = async (p: string) => (await guard.run("tool", call("Read", { path: p }), () => ({ content: "" })))._tag;
            const leaf = file === "." || file === ".." ? "f" : file;
            for (const p of [
              `${dir}/${leaf}`,
              `${dir.normalize("NFD")}/${leaf}`,
              `${dir.normalize("NFC")}/${leaf}`,
              `other/../${dir}/${leaf}`,
              `./${dir}//${leaf}`,
            ])
              expect(await verdict(p), p).toBe("Rejected");
            expect(await verdict(`other/${dir}/${leaf}`)).toBe("Completed");
          },
        ),
        { numRuns: fuzzRuns(500) },
      );
    },
    fuzzTimeout(fuzzRuns(500), 2),
  );
});

// ---------------------------------------------------------------------------------------------
// 4. Generated matcher patterns, with a time budget
// ---------------------------------------------------------------------------------------------

const globPart = fc.constantFrom("a", "a", "b", "*", "*", "**", "?", "/", "**/", "[ab]", "[!a]", "{a,b}", "+(a)", ".", "..", "\\*");
const shellPart = fc.constantFrom("a", "a", "b", "*", "*", " ", "-", ":*", "rm", "git", "'", '"', "$(", ")", "&&", ";");
const regexAtom = fc.constantFrom("a", "b", ".", "\\w", "[ab]", "a*", ".*", "b+", "a?", "(?:ab)", "^", "$", "|", "\\.", "[^a]");
const specArb = fc.oneof(
  fc
    .tuple(
      fc.array(fc.constantFrom("Bash", "Read", "Write", "mcp__x__y", "a-b", "c_d"), { minLength: 1, maxLength: 4 }),
      fc.constantFrom("|", ",", " | "),
    )
    .map(([names, sep]) => ({ spec: names.join(sep), regex: false })),
  fc.array(globPart, { minLength: 1, maxLength: 20 }).map((p) => ({ spec: `Read(${p.join("")})`, regex: false })),
  fc.array(shellPart, { minLength: 1, maxLength: 20 }).map((p) => ({ spec: `Bash(${p.join("")})`, regex: false })),
  fc
    .tuple(fc.boolean(), fc.stringMatching(/^[a-z]{1,8}(\.[a-z]{1,8}){0,3}$/))
    .map(([sub, d]) => ({ spec: `WebFetch(domain:${sub ? "*." : ""}${d})`, regex: false })),
  // At most one unbounded quantifier: with two (`.*.*a_x`) V8's backtracking is cubic, ~57 ms on a
  // 500-character subject. That is the user's own pattern (trusted config), documented, not fuzzed.
  fc
    .array(regexAtom, { minLength: 1, maxLength: 10 })
    .filter((a) => a.filter((x) => /[*+]/.test(x)).length <= 1)
    .map((a) => ({ spec: `${a.join("")}_x`, regex: true })),
);
const adversarial = fc
  .tuple(
    fc.constantFrom("a", "a/", "ab", ".", "a ", "a&&", "$(a", "'a", "a.b.", "http://a"),
    fc.integer({ min: 1, max: 2000 }),
    fc.constantFrom("", "c", "/c", "b", "!", "\u00e9", ")"),
  )
  .map(([unit, n, tail]) => unit.repeat(n) + tail);
/**
 * A RegExp matcher is the user's own pattern, run by V8's backtracking engine on the subject (a
 * tool name or model id, short in practice): an unanchored `.*a_x` is quadratic, ~50 ms on a
 * 3 000-character subject. RegExp subjects are capped at 500 characters here; our own engines
 * (names, globs, shell and domain conditions) get the full length.
 */
const regexSubjectCap = 500;

describe("4. generated matcher patterns stay within a time budget", () => {
  it(
    `compiles any generated pattern and matches it against long adversarial subjects and details in under ${budgetMs} ms`,
    () => {
      fc.assert(
        fc.property(specArb, adversarial, adversarial, ({ spec, regex }, longSubject, detail) => {
          const subject = regex ? longSubject.slice(0, regexSubjectCap) : longSubject;
          tried("matcher patterns: time budget");
          let matcher: ReturnType<typeof compileMatcher> | undefined;
          const compileMs = timed(() => {
            try {
              matcher = compileMatcher(spec, "h");
            } catch (error) {
              expect(error).toBeInstanceOf(RegistrationError);
              matcher = undefined;
            }
          });
          expect(compileMs).toBeLessThan(budgetMs);
          if (matcher === undefined) return;
          const m = matcher;
          const name = /^(\w+)\(/.exec(spec)?.[1] ?? subject;
          expect(timed(() => m.matchSubject(subject))).toBeLessThan(budgetMs);
          expect(timed(() => m.test(name, {}, () => detail))).toBeLessThan(budgetMs);
        }),
        { numRuns: fuzzRuns(200) },
      );
    },
    fuzzTimeout(fuzzRuns(200), 20),
  );
});

// ---------------------------------------------------------------------------------------------
// 5. Shell commands built to dodge a Bash(rm *) condition
// ---------------------------------------------------------------------------------------------

const rmSpelling = fc.constantFrom(
  "rm",
  "'rm'",
  '"rm"',
  "r\\m",
  "\\rm",
  "/bin/rm",
  "/usr/bin/rm",
  '"r""m"',
  "r''m",
  "$'rm'",
  "'r'm",
  "$'\\162m'",
  "./rm",
);
const rmArgs = fc.constantFrom(
  "-rf /",
  "-r -f ~",
  "--recursive --force .",
  "-- -rf",
  '-rf "$HOME"',
  "-rf *",
  "",
  "-rf${IFS}/",
  "</dev/null -rf /",
);
/** Wrappers the shell analyser knows (src/core/match/shell.ts SHELL_WRAPPERS), with their options and operands. */
const wrapper = fc.constantFrom(
  "sudo",
  "sudo -u root",
  "sudo -E",
  "sudo --",
  "doas",
  "doas -u root",
  "env",
  "env -i",
  "env FOO=1",
  "env -u PATH",
  "timeout 5",
  "timeout -s KILL 5",
  "timeout -k 1 5",
  "nice",
  "nice -n 10",
  "nice --",
  "nohup",
  "time",
  "time -p",
  "xargs",
  "xargs -0",
  "xargs -I{}",
  "xargs -n 1",
  "command",
  "command --",
  "builtin",
  "exec",
  "exec -a x",
  "stdbuf -o0",
  "FOO=1",
  "FOO=1 BAR='a b'",
  "A=$(x)",
  "2>/dev/null",
  ">out",
  "ionice -c3",
  "setsid",
  "flock /tmp/l",
  "chroot /",
  "nsenter -t 1 -m",
  "strace",
  "unbuffer",
  "runuser -u x --",
  "watch",
  "firejail",
  "taskset 1",
  "doas --",
);
const escapeSingle = (c: string) => c.replaceAll("'", `'\\''`);
const escapeDouble = (c: string) => c.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("$", "\\$").replaceAll("`", "\\`");
const nest = fc.constantFrom(
  (c: string) => `$( ${c})`,
  (c: string) => `\`${c.replaceAll("\\", "\\\\").replaceAll("`", "\\`")}\``,
  (c: string) => `( ${c} )`,
  (c: string) => `{ ${c}; }`,
  (c: string) => `bash -c '${escapeSingle(c)}'`,
  (c: string) => `sh -c "${escapeDouble(c)}"`,
  (c: string) => `eval '${escapeSingle(c)}'`,
  (c: string) => `bash -lc '${escapeSingle(c)}'`,
  (c: string) => `env -S '${escapeSingle(c)}'`,
  (c: string) => `if true; then ${c}; fi`,
  (c: string) => `for i in 1; do ${c}; done`,
  (c: string) => `while true; do ${c}; break; done`,
  (c: string) => `case x in (x) ${c};; esac`,
  (c: string) => `case x in x) ${c};; esac`,
  (c: string) => `f() { ${c}; }; f`,
  (c: string) => `echo <( ${c})`,
  (c: string) => `x=$( ${c})`,
  (c: string) => `echo "$( ${c})"`,
  (c: string) => `[[ -n $( ${c}) ]]`,
  (c: string) => `! ${c}`,
  (c: string) => `${c} &`,
  (c: string) => `cat <<EOF\n$( ${c})\nEOF`,
);
const benign = fc.constantFrom(
  "ls",
  "echo hi",
  "git status",
  "npm test",
  "cat a.txt",
  "cd /tmp",
  "true",
  "echo 'rm -rf /'",
  'echo "a && b"',
  "grep -r rm .",
);
const separator = fc.constantFrom(";", "&&", "||", "|", "&", "\n", "|&", " ; ", " && ", "\n\n", "\\\n&&");
const hiddenRm = fc
  .tuple(
    rmSpelling,
    rmArgs,
    fc.array(wrapper, { maxLength: 3 }),
    fc.array(nest, { maxLength: 3 }),
    fc.option(fc.tuple(benign, separator), { nil: undefined }),
    fc.option(fc.tuple(separator, benign), { nil: undefined }),
  )
  .map(([spelling, args, wrappers, nests, before, after]) => {
    let command = [...wrappers, spelling, args].filter((p) => p !== "").join(" ");
    for (const n of nests) command = n(command);
    if (before) command = `${before[0]} ${before[1]} ${command}`;
    if (after) command = `${command} ${after[0]} ${after[1]}`;
    return command;
  });

describe("5. shell commands built to dodge Bash(rm *)", () => {
  const rm = compileMatcher("Bash(rm *)", "no-rm");
  const guard = createAgentStack().use("toolCall", { name: "no-rm", match: "Bash(rm *)", before: () => Reject("rm is not allowed") });

  it(
    "catches rm behind any mix of separators, wrappers, env prefixes, quoting, substitutions and subshells",
    async () => {
      await fc.assert(
        fc.asyncProperty(hiddenRm, async (command) => {
          tried("shell: commands hiding rm");
          expect(
            rm.test("Bash", {}, () => command),
            command,
          ).toBe(true);
          let ran = false;
          const outcome = await guard.run("toolCall", { id: "c", name: "Bash", input: { command } }, () => ((ran = true), { content: "" }));
          expect(outcome._tag, command).toBe("Rejected");
          expect(ran).toBe(false);
        }),
        { numRuns: fuzzRuns(3000) },
      );
    },
    fuzzTimeout(fuzzRuns(3000), 1),
  );

  // Found by this property and fixed in 8e37b3d: a `case` pattern's unbalanced `)` inside a
  // double-quoted `$(…)` used to end the substitution early, hiding the rm after it.
  it.each([
    'echo "$(case x in x) rm -rf /;; esac)"',
    'x="$(case a in a) rm -rf /;; esac)"',
    'echo "$(echo x) $(case y in y) rm -rf /;; esac)"',
    'echo "${x:-$(case a in a) rm -rf /;; esac)}"',
  ])("catches %j (a case pattern inside a double-quoted substitution)", (command) => {
    expect(rm.test("Bash", {}, () => command)).toBe(true);
  });

  // A wrapper the analyser does not know hides the command it runs: SHELL_WRAPPERS in
  // src/core/match/shell.ts is a fixed list (8e37b3d added ionice, setsid, chroot, flock, su -c,
  // taskset and more, now in the generator above); these are still outside it.
  it.each([
    "busybox rm -rf /",
    "chronic rm -rf /",
    "script -qc 'rm -rf /'",
    "parallel rm ::: -rf",
    "caffeinate rm -rf /",
    "coproc rm -rf /",
    "pkexec rm -rf /",
    "systemd-run rm -rf /",
    "dbus-launch rm -rf /",
    "numactl -N 0 rm -rf /",
    "cgexec -g cpu:x rm -rf /",
  ])("catches %j (a wrapper added to SHELL_WRAPPERS)", (command) => {
    expect(rm.test("Bash", {}, () => command)).toBe(true);
  });

  // `sg GROUP 'command'` hands its words to a shell: the analysis treats it as opaque, so it matches.
  it.each(["sg wheel 'rm -rf /'"])("catches %j (a wrapper that hands its words to a shell is opaque)", (command) => {
    expect(rm.test("Bash", {}, () => command)).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// 6. Shell metacharacters in tool input, through a real command hook
// ---------------------------------------------------------------------------------------------

describe("6. tool input never reaches a shell as code", () => {
  it(
    "leaves the marker uncreated for batches of generated injection payloads, shell form and exec form",
    async () => {
      const dir = tempDir("inject-");
      const marker = join(dir, "PWNED");
      const meta = fc.constantFrom(
        ";",
        "&&",
        "||",
        "|",
        "&",
        "\n",
        "$(",
        "`",
        ">",
        "<",
        "'",
        '"',
        "\\",
        "$IFS",
        "${",
        "#",
        "*",
        "~",
        "\r",
        "\u0000",
      );
      const payload = fc.oneof(
        fc.constantFrom(
          `"; touch ${marker}; "`,
          `$(touch ${marker})`,
          `\`touch ${marker}\``,
          `'; touch ${marker}; '`,
          `\n touch ${marker}\n`,
          `> ${marker}`,
          `| touch ${marker}`,
          `&& touch ${marker}`,
          `\${IFS}touch\${IFS}${marker}`,
        ),
        fc
          .tuple(fc.string({ maxLength: 6 }), meta, meta, fc.string({ maxLength: 6 }))
          .map(([a, m1, m2, b]) => `${a}${m1} touch ${marker} ${m2}${b}`),
      );
      const shellHook = commandHook({
        event: "PreToolUse",
        name: "shell",
        command: `${fixture("commands", "touch-if-injected.sh")} --tag safe`,
        timeoutMs: 10_000,
      });
      const execHook = commandHook({
        event: "PreToolUse",
        name: "exec",
        command: fixture("commands", "touch-if-injected.sh"),
        args: ["--tag", "safe"],
        timeoutMs: 10_000,
      });
      const stack = createAgentStack().use("toolCall", shellHook).use("toolCall", execHook);
      await fc.assert(
        fc.asyncProperty(fc.array(payload, { minLength: 20, maxLength: 60 }), async (batch) => {
          tried("shell: injection payloads through a command hook", batch.length);
          const input = Object.fromEntries(batch.map((p, i) => [i % 2 === 0 ? `arg${i}` : p.slice(0, 40) || `k${i}`, p]));
          const outcome = await stack.run(
            "toolCall",
            { id: "t", name: "Bash", input: { command: batch.join(" "), description: batch[0], ...input } },
            () => ({ content: "ran" }),
          );
          expect(outcome._tag).toBe("Completed");
          expect(existsSync(marker)).toBe(false);
        }),
        { numRuns: Math.min(100, fuzzRuns(15)) },
      );
    },
    fuzzTimeout(Math.min(100, fuzzRuns(15)), 600),
  );
});
