/**
 * `wrapMcpClient`: an MCP client whose tool calls run through the stack's `toolCall` point.
 *
 * Mapping (MCP TypeScript SDK v1, `@modelcontextprotocol/sdk`):
 * - the `ToolCall` is `{ id, name: params.name, input: params.arguments }`, so matchers see the
 *   tool name as subject and `Bash(rm *)`-style details as for any tool;
 * - the `ToolResult` hooks see is the MCP `CallToolResult` itself (`content` array, `isError`,
 *   `structuredContent`), so an `after` hook can read or rewrite exactly what the server said;
 * - a rejection becomes `{ isError: true, content: [{ type: "text", text }] }`, the way MCP
 *   reports a tool that did not do its job: the model reads why, the caller does not crash;
 * - protocol failures (`McpError`, timeouts) stay exceptions, as the SDK throws them;
 * - `tools/call` sent with `request`, and the task API's streamed calls, take the same way; a result
 *   fetched later by task id (`experimental.tasks.getTaskResult`) is the server's, unhooked.
 *
 * The caller's `RequestOptions` pass through: `signal` also cancels the run (hooks included),
 * and the call itself gets the run's signal, so a hook deadline cancels the server-side work
 * with `notifications/cancelled`; `timeout` stays the SDK's own per-request timeout.
 *
 * To the letter of the SDK (v1), where hooks could make a call fail differently:
 * - a caller's abort fails the call as the SDK fails it: before the request went out (hooks still
 *   deciding), `callTool` and `request` reject with the signal's reason; once it is out, with the
 *   SDK's own error (`McpError` -32001 naming the reason); a stream ends with the SDK's `error`
 *   message (`McpError`, -32603 or -32001). A run deadline of agent-onion's (`timeoutMs`) is not
 *   the caller's abort and stays a `RunAbortedError`;
 * - what the hooks settle on (an `after` hook's `Transform`, a `Replace`, a redaction, a custom
 *   rejection) is checked against the tool's `outputSchema` where the SDK checks the server's
 *   result (`callTool`, `experimental.tasks.callToolStream`; not `request`, `requestStream`), with
 *   the client's own validator and the SDK's errors (see `mcp-output.ts`).
 */
import type { RunOptions } from "../core/context.ts";
import { describeGiven, RunAbortedError } from "../core/errors.ts";
import type { DeepReadonly } from "../core/readonly.ts";
import { abortReason } from "../core/signal.ts";
import { contentText } from "../agent/content-text.ts";
import { rejectedResult, type ToolCallStack } from "../agent/wrap-tool.ts";
import type { ToolCall, ToolResult } from "../agent/types.ts";
import { mcpError, McpErrorCode, sdkTypesModule } from "./mcp-errors.ts";
import { outputProblem, outputValidator } from "./mcp-output.ts";
import { ListedTools, type ListTools, unknownToolResult } from "./mcp-tools.ts";
import { guardedStream, type CallShape, type GuardedCall, type McpStreamMessage } from "./mcp-stream.ts";
import { stackArgument } from "../agent/stack-argument.ts";
import { knownOptions } from "../core/known-options.ts";
import { currentRun, scopedOptions, scopedSignal, warnUnscoped } from "./run-scope.ts";

/**
 * The `params` of `tools/call`.
 *
 * @example
 * client.callTool({ name: "read_file", arguments: { path: "README.md" } })
 */
export interface McpCallToolParams {
  readonly name: string;
  readonly arguments?: Record<string, unknown> | undefined;
  readonly _meta?: Record<string, unknown> | undefined;
  readonly [key: string]: unknown;
}

/**
 * The subset of the SDK's `RequestOptions` this adapter reads; the rest passes through.
 *
 * @example
 * client.callTool({ name: "slow" }, undefined, { signal: AbortSignal.timeout(5_000), timeout: 10_000 })
 */
export interface McpRequestOptions {
  readonly signal?: AbortSignal | undefined;
  readonly timeout?: number | undefined;
  readonly [key: string]: unknown;
}

/**
 * What `callTool` resolves to: MCP's `CallToolResult` (or the legacy `toolResult` form).
 *
 * @example
 * const { content, isError } = await client.callTool({ name: "echo", arguments: { text: "hi" } })
 */
export interface McpCallToolResult {
  readonly content?: readonly unknown[];
  readonly isError?: boolean | undefined;
  readonly structuredContent?: Record<string, unknown> | undefined;
  readonly [key: string]: unknown;
}

/**
 * The shape of an MCP client this adapter wraps: anything with the SDK's `callTool`.
 *
 * @example
 * const client: McpToolClient = new Client({ name: "app", version: "1.0.0" })
 */
export interface McpToolClient {
  /** Calls a tool on the MCP server, as the MCP SDK's `Client.callTool` does. */
  callTool(params: McpCallToolParams, resultSchema?: any, options?: McpRequestOptions): Promise<McpCallToolResult>;
}

/**
 * Options of `wrapMcpClient`: run options per call, and the result of a rejected call.
 *
 * @example
 * wrapMcpClient(stack, client, { run: { sessionId }, rejected: (reason) => ({ isError: true, content: [{ type: "text", text: reason }] }) })
 */
export interface WrapMcpClientOptions {
  /** Run options for every call (session, metadata...), or a function of the call. */
  readonly run?: Omit<RunOptions, "signal"> | ((params: McpCallToolParams) => Omit<RunOptions, "signal">);
  /** The result returned for a rejected call; default: `isError` with "Tool call X was rejected by H: reason". */
  readonly rejected?: (reason: string, by: string, call: DeepReadonly<ToolCall>) => McpCallToolResult;
  /**
   * A call to a name the server does not list (after the hooks, listing the tools again first):
   * `"refuse"` (default) answers it as the SDK's server answers a tool it does not have, without
   * sending it; `"send"` sends it, for a server with tools it does not list.
   */
  readonly unlistedTools?: "refuse" | "send";
}

/** MCP calls carry no id of their own; hooks and traces want one. */
let seq = 0;

/**
 * Wrap an MCP client so that every tool call runs through the stack's `toolCall` point: `callTool`,
 * a `tools/call` sent with the generic `request`, and the streamed calls of the SDK's task API
 * (`experimental.tasks.callToolStream`, `requestStream`; see mcp-stream.ts). Every other member
 * is the original client's.
 *
 * @example
 * const client = wrapMcpClient(stack, new Client({ name: "app", version: "1.0.0" }))
 * await client.connect(transport)
 * const result = await client.callTool({ name: "delete_repo", arguments: { repo: "prod" } })
 * result.isError // true when a hook rejected it; result.content[0].text says why
 */
export const wrapMcpClient = <C extends McpToolClient>(stack: ToolCallStack, client: C, options: WrapMcpClientOptions = {}): C => {
  checkWrapped(stack, client, options);
  knownOptions("wrapMcpClient", options, { run: true, rejected: true, unlistedTools: true });
  // The client's own methods are read at each call, so one replaced after wrapping (a spy, tracing) is used.
  const raw = client as unknown as Record<PropertyKey, unknown>;
  const tools = options.unlistedTools === "send" ? undefined : listedTools(client, raw);
  const call = guardedCall(stack, client, options, tools);
  const original = client.callTool;
  const callTool = (params: McpCallToolParams, resultSchema?: unknown, request: McpRequestOptions = {}): Promise<McpCallToolResult> =>
    call(params, request, (next, options) => original.call(client, next, resultSchema, options), checkedRequest);
  const members = new Map<PropertyKey, () => unknown>([["callTool", () => callTool]]);
  // Other ways to a `tools/call` the SDK offers go through the same call, so none goes around the hooks.
  if (typeof raw.request === "function") {
    const guarded = (req: unknown, schema?: unknown, options?: McpRequestOptions): unknown => {
      const request = raw.request as (...args: unknown[]) => unknown;
      if (isToolCall(req))
        return call(
          req.params,
          options ?? {},
          (next, o) => request.call(client, { ...req, params: next }, schema, o) as Promise<McpCallToolResult>,
          plainRequest,
        );
      const answer = request.call(client, req, schema, options);
      return tools !== undefined && isObject(req) && req.method === "tools/list" ? seen(tools, req.params, answer) : answer;
    };
    members.set("request", () => guarded);
  }
  // The tools the client lists are the names calls may go to.
  if (tools !== undefined && typeof raw.listTools === "function") {
    const listTools = (params?: unknown, ...rest: unknown[]): unknown =>
      seen(tools, params, (raw.listTools as (...args: unknown[]) => unknown).call(client, params, ...rest));
    members.set("listTools", () => listTools);
  }
  const streamed = streamedRequest(call, raw, "requestStream");
  if (streamed !== undefined) members.set("requestStream", () => streamed);
  const views = new WeakMap<object, unknown>();
  members.set("experimental", () => {
    const experimental = Reflect.get(client, "experimental", client);
    if (!isObject(experimental) || !isObject(experimental.tasks)) return experimental;
    if (!views.has(experimental)) {
      const tasks = tasksView(call, experimental.tasks as Record<PropertyKey, unknown>);
      views.set(experimental, withMembers(experimental, new Map([["tasks", () => tasks]])));
    }
    return views.get(experimental);
  });
  return withMembers(client, members);
};

/**
 * Refuse a stack without `run`, a client without `callTool`, or a `rejected` that is not a
 * function, when wrapping: otherwise each call would fail later with a raw TypeError. Any other
 * member of the client is its own business.
 */
const checkWrapped = (stack: unknown, client: unknown, options: WrapMcpClientOptions): void => {
  stackArgument("wrapMcpClient", stack);
  if (!isObject(client))
    throw new TypeError(`wrapMcpClient: client must be an MCP client (an object with callTool), got ${describeGiven(client)}`);
  if (typeof client.callTool !== "function")
    throw new TypeError(`wrapMcpClient: client.callTool must be a function, got ${describeGiven(client.callTool)}`);
  const rejected: unknown = options?.rejected;
  if (rejected !== undefined && typeof rejected !== "function")
    throw new TypeError(`wrapMcpClient: rejected must be a function when given, got ${describeGiven(rejected)}`);
  const unlisted: unknown = options?.unlistedTools;
  if (unlisted !== undefined && unlisted !== "refuse" && unlisted !== "send")
    throw new TypeError(`wrapMcpClient: unlistedTools must be "refuse" or "send" when given, got ${describeGiven(unlisted)}`);
};

const checkedRequest: CallShape = { checked: true, streamed: false };
const plainRequest: CallShape = { checked: false, streamed: false };

/** The tools a client's server listed, one record per client, however many times it is wrapped (a wrapper per request). */
const listedTools = (client: object, raw: Record<PropertyKey, unknown>): ListedTools => {
  let tools = listed.get(client);
  if (tools === undefined) listed.set(client, (tools = new ListedTools(toolLister(client, raw))));
  return tools;
};

const listed = new WeakMap<object, ListedTools>();

/** Record the names a `tools/list` answer holds, once it comes; the answer itself is the caller's, unchanged. */
const seen = (tools: ListedTools, params: unknown, answer: unknown): unknown => {
  if (answer instanceof Promise)
    answer.then(
      (a) => tools.saw(params, a),
      () => undefined,
    );
  return answer;
};

/**
 * How the adapter lists the server's tools itself: with the SDK's generic `request` and its own
 * result schema, which (unlike `listTools`) leaves the client's cached output validators as the
 * caller's own listing left them; else the client's `listTools`; else not at all.
 */
const toolLister = (client: object, raw: Record<PropertyKey, unknown>): ListTools | undefined => {
  if (typeof raw.request !== "function" && typeof raw.listTools !== "function") return undefined;
  return async (cursor) => {
    const params = cursor === undefined ? undefined : { cursor };
    const schema = (await sdkTypesModule())?.ListToolsResultSchema;
    if (schema !== undefined && typeof raw.request === "function")
      return (raw.request as (...args: unknown[]) => unknown).call(client, { method: "tools/list", params }, schema);
    if (typeof raw.listTools === "function") return (raw.listTools as (...args: unknown[]) => unknown).call(client, params);
    return undefined;
  };
};

/** One tool call through the stack's `toolCall` point, sent to the server by `send` (see GuardedCall). */
const guardedCall =
  (stack: ToolCallStack, client: object, options: WrapMcpClientOptions, tools: ListedTools | undefined): GuardedCall =>
  async (params, request, send, shape) => {
    const call: ToolCall = {
      id: `mcp-${++seq}`,
      name: params.name,
      // A copy: strict mode freezes the input, and the arguments are the caller's object.
      input: params.arguments === undefined ? {} : structuredClone(params.arguments),
    };
    const own = typeof options.run === "function" ? options.run(params) : options.run;
    // Inside `aiSdkRun`, the call belongs to its run (see `run-scope.ts`).
    const scope = currentRun();
    if (scope === undefined) warnUnscoped("wrapMcpClient", stack, own?.runId !== undefined);
    const run = scopedOptions(own, scope);
    // The SDK's call of the last attempt, and the server's result it gave, checked by the SDK as `checkedAs`.
    let sent: Promise<McpCallToolResult> | undefined;
    let served: McpCallToolResult | undefined;
    let checkedAs: string | undefined;
    const outcome = await stack.run(
      "toolCall",
      call,
      async (input, ctx) => {
        const next: McpCallToolParams = { ...params, name: input.name, arguments: input.input as Record<string, unknown> };
        // The name the hooks settled on must be one the server lists, or the server may run a tool they did not judge.
        if (tools !== undefined && !tools.known(next.name) && (await tools.listed(next.name, ctx.signal)) === false)
          return unknownToolResult(next.name) as ToolResult;
        const pending = send(next, { ...request, signal: ctx.signal });
        sent = pending;
        const result = await pending;
        [served, checkedAs] = [result, next.name];
        return result as ToolResult;
      },
      { ...run, signal: scopedSignal(request.signal, scope) },
    );
    if (outcome._tag === "Failed") throw await failure(outcome.error, request.signal, sent, shape);
    const result =
      outcome._tag === "Completed"
        ? toMcpResult(outcome.value)
        : (options.rejected?.(outcome.reason, outcome.by, call) ?? {
            content: [{ type: "text", text: String(rejectedResult(call, outcome.reason, outcome.by).content) }],
            isError: true,
          });
    // The server's own result, as the SDK already checked it for this tool, needs no second check.
    const checked = outcome._tag === "Completed" && outcome.value === served && checkedAs === params.name;
    if (shape.checked && !checked) {
      const validator = outputValidator(client, params.name);
      const problem = validator === undefined ? undefined : await outputProblem(validator, params.name, result);
      if (problem !== undefined) throw problem;
    }
    return result;
  };

/**
 * What a failed call throws: the run's error, except when the caller aborted. Then the SDK's own
 * error for the abort, if its call failed with one by now (a request rejects as the signal aborts,
 * a stream reports it at once unless it waits between polls); otherwise what the SDK fails with
 * for an abort it notices itself: a request not yet sent rejects with the reason, one already
 * answered with the SDK's cancellation error, and a stream ends with an internal error naming the reason.
 */
const failure = async (
  error: unknown,
  signal: AbortSignal | undefined,
  sent: Promise<unknown> | undefined,
  shape: CallShape,
): Promise<unknown> => {
  if (!(error instanceof RunAbortedError) || error.timedOut || signal?.aborted !== true) return error;
  const reason = abortReason(signal);
  if (sent !== undefined) {
    const own = await failedByNow(sent);
    if (own !== undefined) return own.error;
  }
  if (shape.streamed) return mcpError(McpErrorCode.InternalError, String(reason));
  return sent === undefined ? reason : mcpError(McpErrorCode.RequestTimeout, String(reason));
};

/** How `promise` failed, if it has by the end of this turn of the event loop (what follows an abort at once has). */
const failedByNow = (promise: Promise<unknown>): Promise<{ readonly error: unknown } | undefined> =>
  new Promise((resolve) => {
    const turn = setImmediate(resolve, undefined);
    promise.then(
      () => (clearImmediate(turn), resolve(undefined)),
      (error: unknown) => (clearImmediate(turn), resolve({ error })),
    );
  });

/** `requestStream(request, schema, options)` of a client or of its task API, streaming a `tools/call` through `call`. */
const streamedRequest = (call: GuardedCall, owner: Record<PropertyKey, unknown>, key: string) => {
  if (typeof owner[key] !== "function") return undefined;
  return (req: unknown, schema?: unknown, options?: McpRequestOptions): unknown => {
    const requestStream = owner[key] as (...args: unknown[]) => AsyncIterable<McpStreamMessage>;
    return isToolCall(req)
      ? guardedStream(call, req.params, options ?? {}, (next, o) => requestStream.call(owner, { ...req, params: next }, schema, o), false)
      : requestStream.call(owner, req, schema, options);
  };
};

/** The task API (`client.experimental.tasks`) with its streamed tool calls guarded. */
const tasksView = (call: GuardedCall, tasks: Record<PropertyKey, unknown>): unknown => {
  const members = new Map<PropertyKey, () => unknown>();
  if (typeof tasks.callToolStream === "function") {
    const guarded = (params: McpCallToolParams, schema?: unknown, options?: McpRequestOptions) =>
      guardedStream(
        call,
        params,
        options ?? {},
        (next, o) => (tasks.callToolStream as (...args: unknown[]) => AsyncIterable<McpStreamMessage>).call(tasks, next, schema, o),
        true,
      );
    members.set("callToolStream", () => guarded);
  }
  const streamed = streamedRequest(call, tasks, "requestStream");
  if (streamed !== undefined) members.set("requestStream", () => streamed);
  return withMembers(tasks, members);
};

const isObject = (value: unknown): value is Record<PropertyKey, unknown> => typeof value === "object" && value !== null;

/** A request for `tools/call`, whatever method of the client carries it. */
const isToolCall = (req: unknown): req is { readonly method: "tools/call"; readonly params: McpCallToolParams } =>
  isObject(req) && req.method === "tools/call" && isObject(req.params);

/**
 * A hook's result as MCP content: an MCP result (or a legacy `{ toolResult }`) passes as is; a
 * plain `{ content: "text" }` from a `Replace` (a cache, a stub) becomes a text block, anything else JSON text.
 */
const toMcpResult = (result: DeepReadonly<ToolResult>): McpCallToolResult => {
  const { content, isError, ...rest } = result as DeepReadonly<ToolResult> & Record<string, unknown>;
  // The legacy form carries its answer in `toolResult`; a made-up text block would contradict it.
  if (content === undefined && "toolResult" in rest) return result as McpCallToolResult;
  const blocks = Array.isArray(content) ? content : [{ type: "text", text: contentText(content) }];
  return { ...rest, content: blocks, ...(isError === true ? { isError: true } : {}) } as McpCallToolResult;
};

/**
 * `target` with some members replaced (each made by its getter, on every read). A proxy rather
 * than a copy: the SDK's `Client` is a class whose methods use `this`, and callers may set
 * handlers (`onerror`, `onclose`) on it.
 */
const withMembers = <C extends object>(target: C, members: ReadonlyMap<PropertyKey, () => unknown>): C => {
  // Bound once per method (not per access), rebound if the client replaces a method.
  const bound = new Map<PropertyKey, { readonly of: unknown; readonly fn: unknown }>();
  return new Proxy(target, {
    get(t, prop) {
      const member = members.get(prop);
      if (member !== undefined) return member();
      const value: unknown = Reflect.get(t, prop, t);
      if (typeof value !== "function") return value;
      const cached = bound.get(prop);
      if (cached?.of === value) return cached.fn;
      const b = (value as (...args: unknown[]) => unknown).bind(t);
      bound.set(prop, { of: value, fn: b });
      return b;
    },
  });
};
