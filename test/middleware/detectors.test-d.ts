/** The detector API: a custom detector may give `minLength` or not; the built-ins are detectors. */
import { describe, expectTypeOf, it } from "vitest";
import { Detectors, defaultDetectors, scan, type Detection, type Detector } from "../../src/middleware/detectors.ts";
import { createRedactor } from "../../src/middleware/redactor.ts";

describe("detector types", () => {
  it("accept a custom detector with or without minLength, and refuse one without find or with a wrong minLength", () => {
    const plain: Detector = { kind: "ticket", window: 10, find: () => [] };
    const sized: Detector = { kind: "ticket", window: 10, minLength: 10, find: () => [] };
    createRedactor({ detectors: [...defaultDetectors(), plain, sized] });
    // @ts-expect-error a detector needs find
    const none: Detector = { kind: "x", window: 1 };
    // @ts-expect-error minLength is a number
    const wrong: Detector = { kind: "x", window: 1, minLength: "10", find: () => [] };
    void none;
    void wrong;
  });

  it("give the new built-in detectors as Detectors, and scan results as Detections", () => {
    expectTypeOf(Detectors.secretAssignment).toEqualTypeOf<Detector>();
    expectTypeOf(Detectors.privateKey).toEqualTypeOf<Detector>();
    expectTypeOf(Detectors.urlCredentials).toEqualTypeOf<Detector>();
    expectTypeOf(scan("x", defaultDetectors())).toEqualTypeOf<Detection[]>();
  });
});
