import { describe, expectTypeOf, it } from "vitest";
import { gate, observe, type Point, type ValueCheck } from "../../src/core/index.ts";

describe("a point's checks, as types", () => {
  it("take a function of an unknown value that says what is wrong, or nothing", () => {
    const text: ValueCheck = (v) => (typeof v === "string" ? undefined : "a string");
    gate<string, string>({ name: "p", input: text, output: text });
    observe<string, string>({ name: "q", output: (v) => (v === "" ? "not empty" : undefined) });
    expectTypeOf<ValueCheck>().toEqualTypeOf<(value: unknown) => string | undefined>();
    expectTypeOf<Point["output"]>().toEqualTypeOf<ValueCheck | undefined>();
  });

  it("refuse what is not such a function", () => {
    // @ts-expect-error a check is a function, not a description
    gate<string, string>({ name: "p", input: "string" });
    // @ts-expect-error a check says what is wrong as text, not as a boolean
    gate<string, string>({ name: "p", output: (v: unknown) => typeof v === "string" });
    // @ts-expect-error a check is asked about any value a hook gives, so it takes unknown, not the point's type
    gate<string, string>({ name: "p", output: (v: number) => (v > 0 ? undefined : "positive") });
  });
});
