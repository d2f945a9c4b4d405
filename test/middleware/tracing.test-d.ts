/** The telemetry options and the request field they read: what may and may not compile. */
import { describe, expectTypeOf, it } from "vitest";
import type { Tracer } from "@opentelemetry/api";
import type { ModelRequest, ModelResponse, ModelServer } from "../../src/agent/index.ts";
import { aiSdkTracer } from "../../src/otel.ts";
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

  it("give a request an optional endpoint with an address and a numeric port, and a response an optional id and chunk times", () => {
    const request: ModelRequest = { model: "m", messages: [], server: { address: "api.openai.com", port: 443 } };
    expectTypeOf(request.server).toEqualTypeOf<ModelServer | undefined>();
    // @ts-expect-error the port is a number
    const wrongPort: ModelRequest = { model: "m", messages: [], server: { address: "h", port: "443" } };
    // @ts-expect-error an endpoint has a port
    const noPort: ModelRequest = { model: "m", messages: [], server: { address: "h" } };
    expectTypeOf<ModelResponse["id"]>().toEqualTypeOf<string | undefined>();
    expectTypeOf<ModelResponse["chunkIntervalsMs"]>().toEqualTypeOf<readonly number[] | undefined>();
    void [wrongPort, noPort];
  });

  it("make aiSdkTracer a Tracer, of an optional Tracer", () => {
    expectTypeOf(aiSdkTracer()).toEqualTypeOf<Tracer>();
    expectTypeOf(aiSdkTracer).parameter(0).toEqualTypeOf<Tracer | undefined>();
  });

  it("let middleware read the invocation but not end it", () => {
    const invocation = currentInvocation();
    expectTypeOf(invocation).toEqualTypeOf<Invocation | undefined>();
    // @ts-expect-error ending is the agent's
    invocation?.end();
  });
});
