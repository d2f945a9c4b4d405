import { describe, expect, it } from "vitest";
import { compileMatcher } from "../../../src/core/match/matcher.ts";
import type { MetadataCondition } from "../../../src/core/match/types.ts";

const matches = (metadataSpec: Record<string, MetadataCondition>, metadata: Record<string, unknown> | undefined): boolean =>
  compileMatcher({ metadata: metadataSpec }, "h").test("any", {}, () => undefined, metadata);

describe("a metadata matcher compares the run's metadata key by key", () => {
  // [label, spec, metadata, expected]
  const table: [string, Record<string, MetadataCondition>, Record<string, unknown> | undefined, boolean][] = [
    ["an equal string", { env: "prod" }, { env: "prod" }, true],
    ["a different string", { env: "prod" }, { env: "dev" }, false],
    ["strings compare exactly (case)", { env: "prod" }, { env: "PROD" }, false],
    ["a number is not its string", { tier: 1 }, { tier: "1" }, false],
    ["an equal number", { tier: 1 }, { tier: 1 }, true],
    ["NaN equals NaN", { ratio: Number.NaN }, { ratio: Number.NaN }, true],
    ["true is not 1", { beta: true }, { beta: 1 }, false],
    ["an equal boolean", { beta: false }, { beta: false }, true],
    ["null equals null", { team: null }, { team: null }, true],
    ["null does not equal an absent key", { team: null }, {}, false],
    ["one of a list", { env: ["prod", "staging"] }, { env: "staging" }, true],
    ["none of a list", { env: ["prod", "staging"] }, { env: "dev" }, false],
    ["an absent key is in no list", { env: ["prod", "staging"] }, {}, false],
    ["every key must hold", { env: "prod", role: "admin" }, { env: "prod", role: "user" }, false],
    ["every key holds", { env: "prod", role: "admin" }, { env: "prod", role: "admin", extra: 1 }, true],
    ["exists: present", { oncall: { exists: true } }, { oncall: "ana" }, true],
    ["exists: present even when falsy", { oncall: { exists: true } }, { oncall: 0 }, true],
    ["exists: absent", { oncall: { exists: true } }, {}, false],
    ["exists: a key set to undefined is absent", { oncall: { exists: true } }, { oncall: undefined }, false],
    ["exists false: absent", { oncall: { exists: false } }, {}, true],
    ["exists false: present", { oncall: { exists: false } }, { oncall: "ana" }, false],
    ["no metadata at all is empty metadata", { oncall: { exists: false } }, undefined, true],
    ["an inherited name is not a key", { toString: { exists: true } }, {}, false],
    ["an object value is never equal to a primitive", { env: "prod" }, { env: { toString: () => "prod" } }, false],
  ];
  it.each(table)("%s", (_label, spec, metadata, expected) => {
    expect(matches(spec, metadata)).toBe(expected);
  });

  it("reads only the metadata's own keys", () => {
    const inherited = Object.create({ env: "prod" }) as Record<string, unknown>;
    expect(matches({ env: "prod" }, inherited)).toBe(false);
  });

  it("keeps the values it was given: changing the list after registration changes nothing", () => {
    const allowed = ["prod"];
    const m = compileMatcher({ metadata: { env: allowed } }, "h");
    allowed.push("dev");
    expect(m.test("x", {}, () => undefined, { env: "dev" })).toBe(false);
  });

  it("reads each listed key once per test", () => {
    let reads = 0;
    const metadata = {
      get env() {
        reads++;
        return "prod";
      },
    };
    matches({ env: ["dev", "prod"] }, metadata);
    expect(reads).toBe(1);
  });

  it("does not depend on the subject, so the chain cache keeps one chain for every subject", () => {
    const m = compileMatcher({ metadata: { env: "prod" } }, "h");
    expect(m).toMatchObject({ all: false, needsInput: true, needsSubject: false });
    expect(m.matchSubject("Bash")).toBe(true);
    expect(m.matchSubject(undefined)).toBe(true);
  });
});
