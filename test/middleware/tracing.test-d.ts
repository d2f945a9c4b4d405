/** The telemetry options and the request field they read: what may and may not compile. */
import { describe, expectTypeOf, it } from "vitest";
import type { ModelRequest } from "../../src/agent/types.ts";
import { currentInvocation, type Invocation } from "../../src/agent/invocation.ts";
import { tracing } from "../../src/middleware/tracing.ts";
import { providerOfSdk } from "../../src/middleware/telemetry-attrs.ts";

describe("telemetry types", () => {
  it("take aiSdkSpans as enrich or separate only", () => {
    tracing({ aiSdkSpans: "enrich" });
    tracing({ aiSdkSpans: "separate" });
    // @ts-expect-error only the two choices
    tracing({ aiSdkSpans: "both" });
  });

  it("give a request an optional provider id, a string", () => {
    const request: ModelRequest = { model: "m", messages: [], provider: "amazon-bedrock" };
    expectTypeOf(request.provider).toEqualTypeOf<string | undefined>();
    // @ts-expect-error the provider id is a string
    const wrong: ModelRequest = { model: "m", messages: [], provider: 5 };
    expectTypeOf(providerOfSdk).returns.toEqualTypeOf<string | undefined>();
    void wrong;
  });

  it("let middleware read the invocation but not end it", () => {
    const invocation = currentInvocation();
    expectTypeOf(invocation).toEqualTypeOf<Invocation | undefined>();
    // @ts-expect-error ending is the agent's
    invocation?.end();
  });
});
