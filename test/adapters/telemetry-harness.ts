/** Tracing and metrics on a stack, read back through the real OpenTelemetry SDK, for the adapters' telemetry tests. */
import { context, trace, type Span } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll } from "vitest";
import { metrics } from "../../src/middleware/metrics.ts";
import { tracing } from "../../src/middleware/tracing.ts";
import { meterHarness, tracerHarness } from "../middleware/otel.ts";
import { chatCompletionsServer, type CompletionScript } from "./chat-completions-server.ts";

/** The convention's bucket boundaries of the client duration metrics, written out so that a wrong constant fails. */
export const chatBuckets = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];

/** Install the AsyncLocalStorage context manager (so an application's span parents ours); returns its uninstall. */
export const useContextManager = (): (() => void) => {
  const manager = new AsyncLocalStorageContextManager();
  context.setGlobalContextManager(manager.enable());
  return () => void context.disable();
};

/**
 * For a test file: the context manager and a Chat Completions server answering `script`, set up
 * before its tests and torn down after them. Read the server's address once the tests run.
 */
export const serveChatCompletions = (script: CompletionScript) => {
  let server: Awaited<ReturnType<typeof chatCompletionsServer>> | undefined;
  let uninstall: (() => void) | undefined;
  beforeAll(async () => {
    uninstall = useContextManager();
    server = await chatCompletionsServer(script);
  });
  afterAll(async () => {
    uninstall?.();
    await server?.close();
  });
  const started = () => {
    if (server === undefined) throw new Error("the Chat Completions server starts before the tests");
    return server;
  };
  return {
    get baseURL() {
      return started().baseURL;
    },
    get port() {
      return started().port;
    },
  };
};

export const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
export const idOf = (span: ReadableSpan | Span) => span.spanContext().spanId;

/** The tracing and metrics middleware on in-memory exporters, and a way to run code under an application span. */
export const telemetry = () => {
  const traces = tracerHarness();
  const meters = meterHarness();
  const middleware = [tracing({ tracer: traces.tracer }), metrics({ meter: meters.meter })];
  /** Run `fn` under an application span named `app`; returns what it returned and the span. */
  const underApp = async <T>(fn: () => Promise<T>): Promise<{ value: T; app: Span }> => {
    const app = traces.tracer.startSpan("app");
    try {
      return { value: await context.with(trace.setSpan(context.active(), app), fn), app };
    } finally {
      app.end();
    }
  };
  return { ...traces, collect: meters.collect, middleware, underApp };
};
