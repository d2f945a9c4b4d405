import { describe, expect, it } from "vitest";
import { nearestName } from "../../src/core/nearest-name.ts";

describe("nearestName", () => {
  it("finds the name a slip was meant to be: a letter missing, swapped, added, the case, or the name cut short", () => {
    const names = ["allow", "deny", "maxSteps", "minLength", "--fail-open", "--json"];
    expect(nearestName("alow", names)).toBe("allow");
    expect(nearestName("dney", names)).toBe("deny");
    expect(nearestName("maxStep", names)).toBe("maxSteps");
    expect(nearestName("MaxSteps", names)).toBe("maxSteps");
    expect(nearestName("minLen", names)).toBe("minLength");
    expect(nearestName("--fail-opn", names)).toBe("--fail-open");
  });

  it("suggests nothing for a word near no name", () => {
    expect(nearestName("colour", ["allow", "deny"])).toBeUndefined();
    expect(nearestName("ab", ["allow", "deny"])).toBeUndefined();
  });
});
