/**
 * The structural shape the AI SDK adapter is written against: the part of the language model
 * specification that V3 (ai 6) and V4 (ai 7) share, field for field. We declare it here rather
 * than import `@ai-sdk/provider` so the library depends on neither version; both versions'
 * types are assignable to these shapes, and everything the adapter builds (text and tool-call
 * parts, finish parts, usage) has the same form in both.
 */
import { brandError } from "../../core/errors.ts";

/**
 * The specification versions the adapter supports.
 *
 * @example
 * const version: SpecVersion = specOf(model) // "v3" with ai 6, "v4" with ai 7
 */
export type SpecVersion = "v3" | "v4";

/** Any content part, prompt part or stream part: only `type` is common to all. */
export interface SdkPart {
  readonly type: string;
}

/** A prompt message: `system` has a string, the others a list of parts. */
export interface SdkMessage {
  readonly role: string;
  readonly content: string | readonly SdkPart[];
}

/** A tool offered to the model (`function`, or a provider tool). */
export interface SdkTool {
  readonly type: string;
  readonly name: string;
  readonly description?: string | undefined;
  readonly inputSchema?: unknown;
}

/** The call options the adapter reads and writes; the rest passes through untouched. */
export interface SdkCallOptions {
  readonly prompt: readonly SdkMessage[];
  readonly tools?: readonly SdkTool[] | undefined;
  readonly maxOutputTokens?: number | undefined;
  readonly temperature?: number | undefined;
  readonly abortSignal?: AbortSignal | undefined;
}

/** `{ unified, raw }`: V4 adds `"interrupted"` to the unified reasons. */
export interface SdkFinishReason {
  readonly unified: string;
  readonly raw: string | undefined;
}

/** Token usage; only the totals are read. */
export interface SdkUsage {
  readonly inputTokens: { readonly total: number | undefined };
  readonly outputTokens: { readonly total: number | undefined };
}

/** What `doGenerate` resolves to. */
export interface SdkGenerateResult {
  readonly content: readonly SdkPart[];
  readonly finishReason: SdkFinishReason;
  readonly usage: SdkUsage;
  readonly response?: { readonly modelId?: string | undefined; readonly id?: string | undefined } | undefined;
}

/** What `doStream` resolves to. */
export interface SdkStreamResult {
  readonly stream: ReadableStream<SdkPart>;
}

/** A language model of either version. */
export interface SdkModel<P extends SdkCallOptions, R extends SdkGenerateResult, S extends SdkStreamResult> {
  readonly specificationVersion: string;
  readonly provider: string;
  readonly modelId: string;
  /** One call, answered whole. */
  doGenerate(options: P): PromiseLike<R>;
  /** One call, answered as a stream of parts. */
  doStream(options: P): PromiseLike<S>;
}

/** What `wrapGenerate` and `wrapStream` receive. */
export interface SdkWrapOptions<P extends SdkCallOptions, R extends SdkGenerateResult, S extends SdkStreamResult> {
  /** Calls the model's `doGenerate` with the call's options. */
  readonly doGenerate: () => PromiseLike<R>;
  /** Calls the model's `doStream` with the call's options. */
  readonly doStream: () => PromiseLike<S>;
  readonly params: P;
  readonly model: SdkModel<P, R, S>;
}

/**
 * Thrown when the wrapped model speaks a specification the adapter does not know.
 *
 * @example
 * specOf({ specificationVersion: "v2" }) // throws UnsupportedSpecificationError
 */
export class UnsupportedSpecificationError extends TypeError {
  override name = "UnsupportedSpecificationError";
  constructor(readonly version: unknown) {
    super(`aiSdkMiddleware supports language model specifications v3 (ai 6) and v4 (ai 7); this model is ${String(version)}`);
  }
}
brandError(UnsupportedSpecificationError);

/**
 * The model's specification version, checked at run time (types cannot tell a V2 model from
 * a V3 one once it is `any`, and V2 differs in usage and finish reasons).
 *
 * @example
 * specOf(new MockLanguageModelV3()) // "v3"
 */
export const specOf = (model: { readonly specificationVersion: string }): SpecVersion => {
  const version = model.specificationVersion;
  if (version === "v3" || version === "v4") return version;
  throw new UnsupportedSpecificationError(version);
};
