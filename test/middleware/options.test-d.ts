/** The field list a factory checks its options against must name every option of its type, and nothing else. */
import { describe, expectTypeOf, it } from "vitest";
import { knownOptions } from "../../src/middleware/options.ts";

interface Options {
  readonly allow?: readonly string[];
  readonly deny?: readonly string[];
  readonly name: string;
}

describe("knownOptions", () => {
  it("accepts a field list that names every option, optional or not, and returns the options' own type", () => {
    const options: Options = { name: "policy" };
    expectTypeOf(knownOptions("policy", options, { allow: true, deny: true, name: true })).toEqualTypeOf<Options>();
  });

  it("refuses a field list that leaves an option out, or names one the type does not have", () => {
    const options: Options = { name: "policy" };
    // @ts-expect-error deny is missing from the list: a new option must be added where it is checked
    knownOptions("policy", options, { allow: true, name: true });
    // @ts-expect-error alow is not an option
    knownOptions("policy", options, { allow: true, deny: true, name: true, alow: true });
  });
});
