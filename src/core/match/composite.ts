/**
 * `{ all: [...] }`, `{ any: [...] }`, `{ not: m }`: and, or and not over compiled
 * matchers. What the chain cache may decide by the subject alone stays decided by the subject:
 * a composite is tested per run only when one of its parts is (`needsInput`), and on the way out
 * only when one of its parts reads the step type (`needsOutcome`).
 *
 * `matchSubject` never says no when `test` could say yes: for `all` every part must pass its
 * subject check, for `any` one must, and `not m` can rule a subject out only when `m` is decided by
 * the subject alone (then `m.matchSubject` is its whole answer).
 */
import type { Matcher } from "./types.ts";

type Test = Matcher["test"];

const flags = (parts: readonly Matcher[]) => ({
  needsInput: parts.some((p) => p.needsInput),
  needsSubject: parts.some((p) => p.needsSubject),
  needsOutcome: parts.some((p) => p.needsOutcome === true),
});

/**
 * Every part matches. The parts keep their order: a cheap part written first decides first.
 *
 * @example
 * allOf("{all}", [compileMatcher("Bash", "h"), compileMatcher({ metadata: { env: "prod" } }, "h")])
 */
export const allOf = (source: string, parts: readonly Matcher[]): Matcher => {
  const f = flags(parts);
  const test: Test = (s, input, detail, metadata, stepType) => {
    for (const p of parts) if (!p.test(s, input, detail, metadata, stepType)) return false;
    return true;
  };
  return {
    source,
    all: parts.every((p) => p.all),
    ...f,
    matchSubject: (s) => parts.every((p) => p.matchSubject(s)),
    test,
  };
};

/**
 * Some part matches.
 *
 * @example
 * anyOf("{any}", [compileMatcher("Write", "h"), compileMatcher("Edit(src/**)", "h")])
 */
export const anyOf = (source: string, parts: readonly Matcher[]): Matcher => {
  const f = flags(parts);
  const test: Test = (s, input, detail, metadata, stepType) => {
    for (const p of parts) if (p.test(s, input, detail, metadata, stepType)) return true;
    return false;
  };
  return {
    source,
    all: parts.some((p) => p.all),
    ...f,
    matchSubject: (s) => parts.some((p) => p.matchSubject(s)),
    test,
  };
};

/**
 * The part does not match. `not "*"` matches nothing, which is allowed (a hook switched off by its match).
 *
 * @example
 * notOf("{not}", compileMatcher("Bash", "h")).matchSubject("Read") // true
 */
export const notOf = (source: string, part: Matcher): Matcher => {
  const bySubject = !part.needsInput && part.needsOutcome !== true;
  return {
    source,
    all: false,
    needsInput: part.needsInput,
    // A negated name check still decides by the subject; a negated match-all too (it rules every subject out).
    needsSubject: part.needsSubject || part.all,
    needsOutcome: part.needsOutcome === true,
    matchSubject: (s) => (bySubject ? !part.matchSubject(s) : true),
    test: (s, input, detail, metadata, stepType) => !part.test(s, input, detail, metadata, stepType),
  };
};
