/**
 * A streamed MCP tool call (the SDK's task API: `experimental.tasks.callToolStream`, and
 * `requestStream` of `tools/call`) through the stack's `toolCall` point, as `wrapMcpClient` runs
 * `callTool`. The hooks decide before anything reaches the server; the task's own messages
 * (`taskCreated`, `taskStatus`) pass on as they arrive; the result comes last, as the `after`
 * hooks left it, or the rejection in its place. A stream is a generator, so nothing runs until
 * it is read, as with the SDK's.
 */
import type { McpCallToolParams, McpCallToolResult, McpRequestOptions } from "./mcp.ts";

/**
 * A message of a streamed call, as the SDK yields them.
 *
 * @example
 * for await (const m of client.experimental.tasks.callToolStream({ name: "build" })) if (m.type === "result") show(m.result)
 */
export type McpStreamMessage =
  | { readonly type: "taskCreated" | "taskStatus"; readonly task: unknown }
  | { readonly type: "result"; readonly result: McpCallToolResult }
  | { readonly type: "error"; readonly error: unknown };

/**
 * How the SDK method a call came through answers: whether it checks results against the tool's
 * output schema (`callTool` and `callToolStream` do, `request` and `requestStream` do not), and
 * whether it streams (a stream reports an abort as an `McpError` message, a request rejects).
 */
export interface CallShape {
  readonly checked: boolean;
  readonly streamed: boolean;
}

/** One call through the stack (see `wrapMcpClient`): `send` reaches the server with what the hooks left. */
export type GuardedCall = (
  params: McpCallToolParams,
  request: McpRequestOptions,
  send: (params: McpCallToolParams, request: McpRequestOptions) => Promise<McpCallToolResult>,
  shape: CallShape,
) => Promise<McpCallToolResult>;

/** The SDK's way to stream one call to the server. */
export type StreamSend = (params: McpCallToolParams, request: McpRequestOptions) => AsyncIterable<McpStreamMessage>;

/**
 * Stream one call through `call`. The run's operation reads the SDK's stream: task messages go to
 * the reader at once, the result is the operation's value, an `error` message its failure (so
 * `recover` hooks and `around` retries act on it). A Failed outcome ends the stream as an `error`
 * message, the way the SDK reports one. A reader that stops early aborts the run, which aborts
 * the SDK's request. `checked`: the SDK method checks results against the tool's output schema.
 *
 * @example
 * const stream = guardedStream(call, { name: "build" }, {}, (p, o) => tasks.callToolStream(p, undefined, o), true)
 */
export async function* guardedStream(
  call: GuardedCall,
  params: McpCallToolParams,
  request: McpRequestOptions,
  send: StreamSend,
  checked: boolean,
): AsyncGenerator<McpStreamMessage, void, void> {
  const live: McpStreamMessage[] = [];
  let last: McpStreamMessage | undefined;
  let wake: (() => void) | undefined;
  // The operation reads the SDK's stream a message at a time, when the reader asks for one, as
  // the SDK's own stream runs: what it is doing when the caller aborts (waiting between polls, or
  // on a request) decides which error the SDK reports, so it must be what it would be unwrapped.
  let more: (() => void) | undefined;
  const ask = (): void => {
    const resume = more;
    more = undefined;
    resume?.();
  };
  // The run's signal: the caller's, and the reader leaving. Once it aborts, the operation reads on,
  // so that the SDK's stream reports the abort its own way.
  const stop = new AbortController();
  stop.signal.addEventListener("abort", ask, { once: true });
  const caller = request.signal;
  const follow = (): void => stop.abort(caller?.reason);
  if (caller?.aborted === true) follow();
  else caller?.addEventListener("abort", follow, { once: true });
  // The run is over when it settles, not when the reader lets go: a reader that takes the result
  // and never asks for more must not leave this listener on its signal.
  const settle = (message: McpStreamMessage): void => {
    caller?.removeEventListener("abort", follow);
    last = message;
    ask(); // a run that settled without the stream (a deadline): the SDK's stream, aborted, ends
    wake?.();
  };
  call(
    params,
    { ...request, signal: stop.signal },
    async (next, options) => {
      for await (const message of send(next, options)) {
        if (message.type === "result") return message.result;
        if (message.type === "error") throw message.error;
        live.push(message);
        wake?.();
        if (last === undefined && !stop.signal.aborted) await new Promise<void>((resolve) => (more = resolve));
      }
      throw new Error(`the MCP stream of tool "${next.name}" ended without a result`);
    },
    { checked, streamed: true },
  ).then(
    (result) => settle({ type: "result", result }),
    (error: unknown) => settle({ type: "error", error }),
  );
  try {
    for (;;) {
      while (live.length > 0) yield live.shift() as McpStreamMessage;
      if (last !== undefined) break;
      ask();
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
    yield last;
  } finally {
    caller?.removeEventListener("abort", follow);
    if (last === undefined) stop.abort(new Error("the reader stopped reading the MCP stream"));
  }
}
