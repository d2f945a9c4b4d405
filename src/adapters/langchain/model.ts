/**
 * `GuardedChatModel`: the agent's chat model with every call run through the stack's
 * `modelCall` point, put in its place for one model call by the middleware's `wrapModelCall`.
 *
 * It is a LangChain chat model itself, so the agent binds tools to it, invokes it and streams it
 * as it would the model inside, and LangChain's callbacks (the agent's `streamMode: "messages"`,
 * `streamEvents`, tracing) see this model's run: the model inside is called with no callbacks,
 * so nothing it streams reaches anyone before the hooks released it.
 *
 * - `before` hooks see the messages the model would read (the system prompt first) and the
 *   tools it is offered; a rewritten message, a removed tool, reach the model (see
 *   `MappedMessages`); `ctx.addContext(text)` joins the system message of this very call.
 * - The answer is an `AIMessage`; `after` hooks see it as a `ModelResponse` (usage from
 *   `usage_metadata`, estimated when the provider reported none), and what they change is what
 *   the agent gets (see `toAIMessage`). A `Replace` in `before` (a cache) answers without the model.
 * - When LangChain streams (a callback prefers streaming: `agent.stream` with `"messages"`,
 *   `streamEvents`), the call goes through the agent layer's streaming machinery: chunk hooks,
 *   output gates and hold-back work as in our own loop, and only what they release is streamed.
 * - A failure throws what the model threw (unwrapped from a failed stream); a hook failing closed
 *   throws `OutcomeRejectedError`; the caller's abort throws the caller's reason.
 */
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { BaseChatModel, type BaseChatModelCallOptions, type BindToolsInput } from "@langchain/core/language_models/chat_models";
import type { ModelProfile } from "@langchain/core/language_models/profile";
import { SystemMessage, type AIMessage, type AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import type { ChatGenerationChunk, ChatResult } from "@langchain/core/outputs";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import type { RunOptions } from "../../core/context.ts";
import { RunAbortedError } from "../../core/errors.ts";
import { type Outcome, OutcomeRejectedError } from "../../core/outcome.ts";
import type { DeepReadonly } from "../../core/readonly.ts";
import { neverAborted } from "../../core/signal.ts";
import { notAResponse } from "../../agent/response-shape.ts";
import type { HoldBack } from "../../agent/stream/control.ts";
import { ModelStreamError } from "../../agent/stream/errors.ts";
import { streamThroughStack, type ModelCallStack } from "../../agent/stream/through-stack.ts";
import type { ModelRequest, ModelResponse, ToolSpec } from "../../agent/types.ts";
import { CallContext } from "../call-context.ts";
import { serverOf } from "../model-endpoint.ts";
import { MappedMessages, copy, textOf, withText } from "./messages.ts";
import { toAIMessage, toResponse } from "./response.ts";
import { ChunkMemo, fromChunks, toChunk } from "./stream.ts";

/** The part of a chat model (or `initChatModel`'s configurable one) this wrapper uses. */
export interface ChatModelLike extends Invokable {
  /** The model with `tools` bound, as LangChain's `bindTools` returns it. */
  bindTools(tools: BindToolsInput[], kwargs?: Record<string, unknown>): Invokable | PromiseLike<Invokable>;
  readonly profile?: ModelProfile;
  /** LangChain's name of the model's type (for example `"openai"`). */
  _llmType?(): string;
}

/** What a chat model with tools bound is: something to invoke and stream. */
export interface Invokable {
  /** One call, answered whole. */
  invoke(input: BaseMessage[], options?: Record<string, unknown>): Promise<AIMessage>;
  /** One call, answered in chunks. */
  stream(input: BaseMessage[], options?: Record<string, unknown>): Promise<AsyncIterable<AIMessageChunk>>;
}

/**
 * What one model call of the agent runs with: the stack, the run's options, the model's id.
 *
 * @example
 * const scope: ModelScope = { stack, run: { sessionId: "t1", runId: "t1:m1" }, modelId: "gpt-4o" }
 */
export interface ModelScope {
  readonly stack: ModelCallStack;
  readonly run: Omit<RunOptions, "signal">;
  readonly holdBack?: HoldBack | undefined;
  readonly modelId: string;
}

/** Tools as hooks see them, made once per tool object. */
const specs = new WeakMap<object, ToolSpec>();

const nameOf = (tool: unknown): string | undefined => {
  const t = tool as { name?: unknown; function?: { name?: unknown } } | null;
  const name = t?.name ?? t?.function?.name;
  return typeof name === "string" ? name : undefined;
};

/** A tool given to `bindTools` as a `ToolSpec` (name, description, JSON Schema of its input). */
const specOf = (tool: BindToolsInput): ToolSpec => {
  const cached = typeof tool === "object" && tool !== null ? specs.get(tool) : undefined;
  if (cached !== undefined) return cached;
  let spec: ToolSpec;
  try {
    const f = convertToOpenAITool(tool as Parameters<typeof convertToOpenAITool>[0]).function;
    // A copy: hooks may see it frozen, and the schema is LangChain's own object (a structured output's validates with it).
    spec = {
      name: f.name,
      ...(f.description !== undefined ? { description: f.description } : {}),
      ...(f.parameters !== undefined ? { inputSchema: copy(f.parameters) as Record<string, unknown> } : {}),
    };
  } catch {
    // A provider's own tool (a web search, a code interpreter) has no function form: its name is what hooks get.
    spec = { name: nameOf(tool) ?? String((tool as { type?: unknown } | null)?.type ?? "tool") };
  }
  if (typeof tool === "object" && tool !== null) specs.set(tool, spec);
  return spec;
};

/** Call options for the model inside: the caller's, without what LangChain added for this model's own run. */
const forwarded = (options: Record<string, unknown>, signal: AbortSignal | undefined): Record<string, unknown> => {
  const { signal: _signal, promptIndex: _index, callbacks: _callbacks, ...rest } = options;
  // No callbacks: what the model inside streams reaches LangChain's handlers only as this model's, once released.
  return { ...rest, signal, callbacks: [] };
};

/** The context texts joined to the system message at the head of the messages (a new one when there is none). */
const withContext = (messages: BaseMessage[], texts: readonly string[]): BaseMessage[] => {
  if (texts.length === 0) return messages;
  const first = messages[0];
  const extra = texts.join("\n\n");
  if (first !== undefined && first.getType() === "system") {
    const text = textOf(first.content);
    return [
      new SystemMessage({
        content: withText(first.content, text === "" ? extra : `${text}\n\n${extra}`),
        ...(first.id !== undefined ? { id: first.id } : {}),
      }),
      ...messages.slice(1),
    ];
  }
  return [new SystemMessage(extra), ...messages];
};

/**
 * The provider and endpoint of a LangChain chat model, as the model says them: its LangSmith
 * `ls_provider` (`openai`, `azure`, `anthropic`, `amazon_bedrock`, `google_vertexai`...; telemetry
 * maps it to the convention's name) and, for the OpenAI family, the base URL of its client
 * configuration (`configuration.baseURL`) or its Azure endpoint; for a model of `initChatModel`,
 * the provider and base URL it was configured with.
 */
const originOf = (model: ChatModelLike): Pick<ModelRequest, "provider" | "server"> => {
  // Read once per model: a model's provider and endpoint are its configuration, and reading them
  // (ChatOpenAI builds its invocation parameters for getLsParams) would otherwise cost every call.
  let origin = origins.get(model);
  if (origin === undefined) origins.set(model, (origin = readOrigin(model)));
  return origin;
};

const origins = new WeakMap<ChatModelLike, Pick<ModelRequest, "provider" | "server">>();

const readOrigin = (model: ChatModelLike): Pick<ModelRequest, "provider" | "server"> => {
  const m = model as unknown as {
    getLsParams?: (options: unknown) => { ls_provider?: unknown } | undefined;
    clientConfig?: { baseURL?: unknown };
    azureOpenAIEndpoint?: unknown;
    azureOpenAIBasePath?: unknown;
    azureOpenAIApiInstanceName?: unknown;
    _defaultConfig?: { modelProvider?: unknown; configuration?: { baseURL?: unknown }; baseUrl?: unknown };
  };
  let provider: unknown;
  let base: unknown;
  const configured = m._defaultConfig;
  if (typeof configured === "object" && configured !== null) {
    // `initChatModel` (and `createAgent({ model: "openai:gpt-4o" })`) makes a ConfigurableModel that
    // builds the real model on its first call: its provider and endpoint are in its configuration
    // (its own LangSmith parameters would name the class). Without a provider there, LangChain
    // infers one from the model id, and so does telemetry.
    provider = configured.modelProvider;
    base = configured.configuration?.baseURL ?? configured.baseUrl;
  } else {
    try {
      provider = typeof m.getLsParams === "function" ? m.getLsParams({})?.ls_provider : undefined;
    } catch {
      provider = undefined;
    }
    const instance =
      typeof m.azureOpenAIApiInstanceName === "string" ? `https://${m.azureOpenAIApiInstanceName}.openai.azure.com` : undefined;
    base = m.clientConfig?.baseURL ?? m.azureOpenAIBasePath ?? m.azureOpenAIEndpoint ?? instance;
  }
  const server = serverOf(base);
  return {
    ...(typeof provider === "string" && provider !== "" ? { provider } : {}),
    ...(server !== undefined ? { server } : {}),
  };
};

/**
 * A chat model whose calls run through the stack's `modelCall` point.
 *
 * @example
 * wrapModelCall: (request, handler) => handler({ ...request, model: new GuardedChatModel(scope, request.model) })
 */
export class GuardedChatModel extends BaseChatModel {
  static override lc_name(): string {
    return "AgentOnionChatModel";
  }

  declare readonly scope: ModelScope;
  declare readonly inner: ChatModelLike;
  /** The tools given to `bindTools` (not `tools`: LangChain reads a model's `tools` as tools already bound). */
  declare readonly boundTools: readonly BindToolsInput[];
  declare readonly bindKwargs: Record<string, unknown> | undefined;

  constructor(scope: ModelScope, inner: ChatModelLike, tools: readonly BindToolsInput[] = [], kwargs?: Record<string, unknown>) {
    super({});
    this.scope = scope;
    this.inner = inner;
    this.boundTools = tools;
    this.bindKwargs = kwargs;
  }

  /** LangChain's name for the model type: the inner model's, or `agent-onion`. */
  _llmType(): string {
    // LangChain's constructor asks before `inner` is set (for the serialization namespace).
    return (this.inner as ChatModelLike | undefined)?._llmType?.() ?? "agent-onion";
  }

  /** LangSmith's parameters of the model inside (its provider and model name), so traces name the provider, not this wrapper. */
  override getLsParams(options: this["ParsedCallOptions"]): ReturnType<BaseChatModel["getLsParams"]> {
    const own = (this.inner as { getLsParams?: (options: unknown) => ReturnType<BaseChatModel["getLsParams"]> }).getLsParams;
    return typeof own === "function" ? own.call(this.inner, options) : super.getLsParams(options);
  }

  override get profile(): ModelProfile {
    return this.inner.profile ?? {};
  }

  override bindTools(tools: BindToolsInput[], kwargs?: Partial<BaseChatModelCallOptions>): GuardedChatModel {
    return new GuardedChatModel(this.scope, this.inner, tools, kwargs as Record<string, unknown> | undefined);
  }

  /** The model inside with the tools the hooks left bound (all of them, unless a hook removed some). */
  private async model(request: DeepReadonly<ModelRequest>, specs: readonly ToolSpec[]): Promise<Invokable> {
    const given = request.tools;
    let tools = this.boundTools;
    if (given !== undefined && (given.length !== specs.length || given.some((t, i) => t !== specs[i]))) {
      const kept = new Set(given.map((t) => t.name));
      const known = new Set(specs.map((s) => s.name));
      // A tool a hook made up has no implementation here: the model is offered its spec as given.
      const made = given
        .filter((t) => !known.has(t.name))
        .map((t) => ({
          type: "function",
          function: { name: t.name, description: t.description ?? "", parameters: copy(t.inputSchema ?? { type: "object" }) },
        }));
      tools = [...this.boundTools.filter((_, i) => kept.has(specs[i]?.name ?? "")), ...(made as BindToolsInput[])];
    }
    if (tools.length === 0 && this.bindKwargs === undefined) return this.inner;
    return this.inner.bindTools(tools as BindToolsInput[], this.bindKwargs);
  }

  /** The request hooks see, and how to map what they settle on back. */
  private request(messages: BaseMessage[], stream: boolean): { request: ModelRequest; mapped: MappedMessages; specs: readonly ToolSpec[] } {
    const mapped = new MappedMessages(messages);
    const specs = this.boundTools.map(specOf);
    const request: ModelRequest = {
      model: this.scope.modelId,
      messages: mapped.messages,
      ...(specs.length > 0 ? { tools: specs } : {}),
      ...(stream ? { stream: true } : {}),
      ...originOf(this.inner),
    };
    return { request, mapped, specs };
  }

  /** LangChain's generate step: one `modelCall` run around the inner model's call. */
  async _generate(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    _runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    const { scope } = this;
    const { request, mapped, specs } = this.request(messages, false);
    const context = new CallContext(scope.run.onContext);
    const caller = options.signal;
    // Which answer came from which message, to hand back the model's own message when hooks left it alone.
    const produced = new Map<ModelResponse, AIMessage>();
    const outcome = await scope.stack.run(
      "modelCall",
      request,
      async (req, ctx) => {
        const texts = context.forAttempt();
        const model = await this.model(req, specs);
        const signal = ctx.signal === neverAborted ? caller : ctx.signal;
        const message = await model.invoke(
          withContext(mapped.back(req.messages), texts),
          forwarded(options as Record<string, unknown>, signal),
        );
        const response = toResponse(message, req.messages, scope.modelId);
        produced.set(response, message);
        return response;
      },
      { ...scope.run, signal: caller, onContext: context.push },
    );
    if (outcome._tag !== "Completed") throw errorOf(outcome, caller);
    const malformed = notAResponse(outcome.value);
    if (malformed !== undefined) throw malformed;
    const value = outcome.value as ModelResponse;
    // An answer the hooks rewrote keeps the id, metadata and non-text blocks of the model's last one.
    const own = produced.get(value);
    const last = [...produced].at(-1);
    const message = toAIMessage(
      value,
      own !== undefined ? { response: value, message: own } : last === undefined ? undefined : { response: last[0], message: last[1] },
    );
    return { generations: [{ text: textOf(message.content), message }] };
  }

  /** LangChain's stream step: one `modelCall` run around the inner model's stream. */
  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const { scope } = this;
    const { request, mapped, specs } = this.request(messages, true);
    const context = new CallContext(scope.run.onContext);
    const caller = options.signal;
    const memo = new ChunkMemo();
    const call = streamThroughStack(
      scope.stack,
      request,
      async (req, { signal }) => {
        const texts = context.forAttempt();
        const model = await this.model(req, specs);
        const chunks = await model.stream(
          withContext(mapped.back(req.messages), texts),
          forwarded(options as Record<string, unknown>, signal),
        );
        return fromChunks(chunks, memo);
      },
      { ...scope.run, ...(scope.holdBack !== undefined ? { holdBack: scope.holdBack } : {}), signal: caller, onContext: context.push },
    );
    let finished = false;
    try {
      for await (const part of call.parts) {
        const chunk = toChunk(part, memo);
        if (chunk === undefined) continue;
        yield chunk;
        await runManager?.handleLLMNewToken(chunk.text, undefined, undefined, undefined, undefined, { chunk });
      }
      finished = true;
    } finally {
      // The consumer left early (or the stream failed): end the provider stream; the post-phase still runs.
      if (!finished) call.cancel();
    }
    const outcome = await call.outcome;
    if (outcome._tag !== "Completed") throw errorOf(outcome, caller);
  }
}

/** What to throw for an outcome that is not `Completed`: what LangChain's callers expect to catch. */
const errorOf = (outcome: Outcome<unknown>, caller: AbortSignal | undefined): unknown => {
  if (outcome._tag === "Rejected") return new OutcomeRejectedError(outcome.reason, outcome.by, outcome.cause);
  if (outcome._tag !== "Failed") return new TypeError("not a failure");
  const error = outcome.error;
  // The caller aborted: throw their reason, which LangChain and apps recognise.
  if (error instanceof RunAbortedError && !error.timedOut && caller?.aborted) return caller.reason;
  return error instanceof ModelStreamError ? error.cause : error;
};
