import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { compileMatcher } from "../../../src/core/match/matcher.ts";
import type { MatchContext, MatchSpec } from "../../../src/core/match/types.ts";

const flagged = (_s: string | undefined, _i: unknown, { metadata }: MatchContext) => metadata.flag === true;

// Every matcher form, as leaves of random composites.
const leaf: fc.Arbitrary<MatchSpec> = fc.constantFrom<MatchSpec>(
  "*",
  "Bash",
  "Read|Write",
  "^B",
  "ea",
  "Bash(rm *)",
  "Edit(src/**)",
  { metadata: { env: "prod" } },
  { metadata: { env: ["prod", "dev"] } },
  { metadata: { oncall: { exists: true } } },
  { metadata: { flag: true, env: "dev" } },
  flagged,
);

const { matcher } = fc.letrec<{ matcher: MatchSpec }>((tie) => ({
  matcher: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.record({ all: fc.array(tie("matcher"), { minLength: 1, maxLength: 3 }) }) as fc.Arbitrary<MatchSpec>,
    fc.record({ any: fc.array(tie("matcher"), { minLength: 1, maxLength: 3 }) }) as fc.Arbitrary<MatchSpec>,
    fc.record({ not: tie("matcher") }) as fc.Arbitrary<MatchSpec>,
  ),
}));

const subject = fc.constantFrom<string | undefined>("Bash", "Read", "Write", "Edit", "NotebookEdit", "Beat", undefined);
const detail = fc.constantFrom<string | undefined>("rm -rf /", "ls -la", "src/a.ts", "lib/b.ts", undefined);
const metadata = fc.record(
  { env: fc.constantFrom("prod", "dev", "test"), oncall: fc.constantFrom("ana", 0), flag: fc.boolean() },
  { requiredKeys: [] },
);
const run = fc.record({ subject, detail, metadata });
type Run = { subject: string | undefined; detail: string | undefined; metadata: Record<string, unknown> };

/** What the engine decides for a run: the cached subject check, then the per-run test when needed. */
const decide = (spec: MatchSpec, r: Run): boolean => {
  const m = compileMatcher(spec, "h");
  return m.matchSubject(r.subject) && (!m.needsInput || m.test(r.subject, {}, () => r.detail, r.metadata));
};

/** The full test, as `test` answers it. */
const holds = (spec: MatchSpec, r: Run): boolean => compileMatcher(spec, "h").test(r.subject, {}, () => r.detail, r.metadata);

describe("composite matchers, for all matchers and runs", () => {
  test.prop([matcher, run])("the engine's decision is the full test: the subject check never says no where the test says yes", (m, r) => {
    expect(decide(m, r)).toBe(holds(m, r));
  });

  test.prop([matcher, run])("not(not(m)) is m", (m, r) => {
    expect(decide({ not: { not: m } }, r)).toBe(decide(m, r));
  });

  test.prop([matcher, run])("all([m]) and any([m]) are m", (m, r) => {
    expect(decide({ all: [m] }, r)).toBe(decide(m, r));
    expect(decide({ any: [m] }, r)).toBe(decide(m, r));
  });

  test.prop([matcher, matcher, run])("not(all([a, b])) is any([not a, not b])", (a, b, r) => {
    expect(decide({ not: { all: [a, b] } }, r)).toBe(decide({ any: [{ not: a }, { not: b }] }, r));
  });

  test.prop([matcher, matcher, run])("not(any([a, b])) is all([not a, not b])", (a, b, r) => {
    expect(decide({ not: { any: [a, b] } }, r)).toBe(decide({ all: [{ not: a }, { not: b }] }, r));
  });

  test.prop([matcher, matcher, run])("all and any are and and or of their parts", (a, b, r) => {
    expect(decide({ all: [a, b] }, r)).toBe(decide(a, r) && decide(b, r));
    expect(decide({ any: [a, b] }, r)).toBe(decide(a, r) || decide(b, r));
  });
});
