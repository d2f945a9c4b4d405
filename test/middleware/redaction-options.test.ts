import { describe, expect, it } from "vitest";
import { redaction } from "../../src/middleware/redaction.ts";
import { createRedactor, type Redactor } from "../../src/middleware/redactor.ts";

describe("redaction checks its options when it is made", () => {
  it("refuses a salt that is not a string", () => {
    expect(() => redaction({ salt: 123 as unknown as string })).toThrow(new TypeError("redaction: salt must be a string, got 123"));
    expect(() => createRedactor({ salt: null as unknown as string })).toThrow(/redaction: salt must be a string/);
    expect(() => redaction({ salt: "pepper" })).not.toThrow();
  });

  it("refuses a maxDepth that is not an integer of at least 1", () => {
    for (const maxDepth of [0, -1, 1.5, Number.NaN, "64"])
      expect(() => redaction({ maxDepth: maxDepth as number })).toThrow(/redaction: maxDepth must be an integer >= 1/);
    expect(() => redaction({ maxDepth: 1 })).not.toThrow();
  });

  it("names the hook in every refusal of the redactor's own options", () => {
    const made = (options: Record<string, unknown>) => () => redaction({ name: "pii", ...options } as never);
    expect(made({ salt: 1 })).toThrow(new TypeError("pii: salt must be a string, got 1"));
    expect(made({ maxDepth: 0 })).toThrow(/^pii: maxDepth must be an integer >= 1/);
    expect(made({ strategy: "drop" })).toThrow(/^pii: strategy must be one of block, redact, mask, hash, got drop/);
    expect(made({ strategies: { email: "drop" } })).toThrow(/^pii: strategies\.email must be one of/);
    expect(made({ detectors: [{}] })).toThrow(/^pii: detectors must be a list of detectors/);
  });

  it("refuses an `on` that is not an object of booleans for the four places, naming the hook", () => {
    expect(() => redaction({ name: "pii", on: "all" as never })).toThrow(
      new TypeError('pii: on must be an object of booleans (userPrompt, toolInput, toolOutput, modelOutput), got "all"'),
    );
    expect(() => redaction({ on: { modelOutput: "no" as unknown as boolean } })).toThrow(
      /redaction: on\.modelOutput must be a boolean, got "no"/,
    );
    expect(() => redaction({ on: { modeloutput: false } as never })).toThrow(
      /redaction: on\.modeloutput is not a place to redact \(expected one of userPrompt, toolInput, toolOutput, modelOutput\)/,
    );
    expect(() => redaction({ on: { toolInput: false } })).not.toThrow();
  });

  it("refuses a redactor without the methods redaction uses", () => {
    expect(() => redaction({ redactor: {} as Redactor })).toThrow(
      /redaction: redactor must be a redactor \(see createRedactor\); its text is not a function/,
    );
    expect(() => redaction({ redactor: { ...createRedactor(), detectors: undefined } as unknown as Redactor })).toThrow(
      /redaction: redactor must be a redactor .*detectors is not a list/,
    );
    expect(() => redaction({ redactor: createRedactor() })).not.toThrow();
  });
});
