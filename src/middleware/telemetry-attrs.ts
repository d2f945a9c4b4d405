/**
 * Attribute values shared by the metrics and tracing middleware: the provider of a model,
 * `error.type` of a failure, a hook's outcome in the reference's words, and a cap on how many
 * distinct values an attribute may take (tool and model names come from the model and the
 * caller, so a confused model must not be able to explode a metric's cardinality). Also the
 * `redact` option that audit, tracing and the Chrome trace share, and how they scrub hook names.
 */
import type { Outcome } from "../core/outcome.ts";
import type { TraceAction } from "../core/trace.ts";
import type { Redactor, RedactorOptions } from "./redactor.ts";
import { knownOptions, show } from "./options.ts";
import { GenAiProvider, otherValue } from "./semconv.ts";

/** How to name the provider of a model: a fixed name, or a function of the model id. */
export type ProviderOption = string | ((model: string) => string | undefined);

const known: readonly (readonly [RegExp, string])[] = [
  [/^claude|^anthropic/i, "anthropic"],
  [/^(gpt-|o\d|chatgpt|text-embedding|openai)/i, "openai"],
  [/^gemini|^models\/gemini/i, "gcp.gemini"],
  [/^(mistral|mixtral|codestral|magistral)/i, "mistral_ai"],
  [/^command|^cohere/i, "cohere"],
  [/^grok/i, "x_ai"],
  [/^deepseek/i, "deepseek"],
];

/**
 * Refuse a provider option that is neither a non-empty name nor a function (when given), when the
 * middleware is made: a number would otherwise throw inside `providerOf` on every model call.
 *
 * @example
 * providerOption("metrics", 5) // throws TypeError: metrics: provider must be a provider name or a function of the model id, got 5
 */
export const providerOption = (hook: string, value: unknown): ProviderOption | undefined => {
  if (value === undefined || typeof value === "function" || (typeof value === "string" && value.trim() !== ""))
    return value as ProviderOption | undefined;
  throw new TypeError(`${hook}: provider must be a provider name or a function of the model id, got ${show(value)}`);
};

/** How audit, tracing and the Chrome trace scrub what they write: a redactor, its options, or `false` for not at all. */
export type RedactOption = Redactor | RedactorOptions | false;

/**
 * Refuse a redact option that is none of a redactor, redactor options or `false` (when given), when
 * the middleware is made: `"yes"` or `true` would otherwise be read as empty redactor options, and
 * so mean the default detectors (and, for tracing, hashing the conversation id) without a word.
 *
 * @example
 * redactOption("audit", "yes") // throws TypeError: audit: redact must be a redactor, redactor options or false, got "yes"
 */
export const redactOption = (hook: string, value: unknown): RedactOption | undefined => {
  if (value === undefined || value === false) return value;
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    // Redactor options (not a redactor) are read as `createRedactor` reads them: name a misspelt field here.
    if (typeof (value as Partial<Redactor>).scrub !== "function")
      knownOptions(`${hook}: redact`, value as RedactorOptions, {
        detectors: true,
        strategy: true,
        strategies: true,
        salt: true,
        maxDepth: true,
      });
    return value as RedactOption;
  }
  throw new TypeError(
    `${hook}: redact must be a redactor, redactor options or false, got ${Array.isArray(value) ? "a list" : show(value)}`,
  );
};

/**
 * Hook names scrubbed by `redactor` (as they are without one), each remembered once scrubbed:
 * names are registered, not data, so there are few, and scanning one on every decision cost more
 * than the rest of an audited run. Up to `cap` names are remembered, past which a name is scrubbed
 * each time, so memory stays bounded. This takes a name's scrubbed form to depend on the name
 * alone, as it does for every strategy (a hash is salted once per redactor).
 *
 * @example
 * const hookName = scrubbedNamesOf(createRedactor()); hookName("notify:sk_live_…") // "notify:[REDACTED:api_key]", scanned once
 */
export const scrubbedNamesOf = (redactor: Redactor | undefined, cap = 1000): ((hook: string) => string) => {
  if (redactor === undefined) return (hook) => hook;
  const seen = new Map<string, string>();
  return (hook) => {
    const known = seen.get(hook);
    if (known !== undefined) return known;
    const scrubbed = redactor.scrub(hook);
    if (seen.size < cap) seen.set(hook, scrubbed);
    return scrubbed;
  };
};

// The frameworks' provider ids by their leading segments, most specific first: the AI SDK's
// `LanguageModel.provider` (`amazon-bedrock`, `azure.chat`, `google.vertex.chat`), LangChain's
// `ls_provider` (`amazon_bedrock`, `azure`, `google_vertexai`, `google_genai`) and `initChatModel`
// providers (`bedrock`, `azure_openai`, `google-vertexai`, `google-genai`). The id says which
// API the call goes to, which the model id cannot (a Claude model on Bedrock or Vertex is not `anthropic`).
const sdkProviders: readonly (readonly [RegExp, string])[] = [
  [/^(google\.vertex|vertex|google_vertexai|google-vertexai(-web)?|vertexai)(\.|$)/, GenAiProvider.gcpVertexAi],
  [/^(google(\.generative-ai)?|google_genai|google-genai)(\.|$)/, GenAiProvider.gcpGemini],
  [/^(amazon-bedrock|amazon_bedrock|bedrock(_converse)?)(\.|$)/, GenAiProvider.awsBedrock],
  [/^(azure-ai-inference|azure_ai_inference)(\.|$)/, GenAiProvider.azureAiInference],
  [/^(azure(-openai)?|azure_openai)(\.|$)/, GenAiProvider.azureAiOpenai],
  [/^openai(\.|$)/, GenAiProvider.openai],
  [/^anthropic(\.|$)/, GenAiProvider.anthropic],
  [/^(mistral|mistralai)(\.|$)/, GenAiProvider.mistralAi],
  [/^cohere(\.|$)/, GenAiProvider.cohere],
  [/^xai(\.|$)/, GenAiProvider.xAi],
  [/^deepseek(\.|$)/, GenAiProvider.deepseek],
  [/^groq(\.|$)/, GenAiProvider.groq],
  [/^perplexity(\.|$)/, GenAiProvider.perplexity],
  [/^(moonshotai|moonshot)(\.|$)/, GenAiProvider.moonshotAi],
  [/^(watsonx|ibm)(\.|$)/, GenAiProvider.ibmWatsonxAi],
];

const wellKnown: ReadonlySet<string> = new Set(Object.values(GenAiProvider));

/**
 * The `gen_ai.provider.name` of a framework's provider id (the AI SDK's `LanguageModel.provider`,
 * LangChain's `ls_provider`, or a well-known value an adapter read off the endpoint): the
 * convention's well-known value when one applies, else the id's first segment (`ollama.chat` is
 * `ollama`), as the convention allows a custom value; undefined for no id.
 *
 * @example
 * providerOfSdk("amazon-bedrock") // "aws.bedrock"
 * providerOfSdk("google.vertex.chat") // "gcp.vertex_ai"
 */
export const providerOfSdk = (id: string | undefined): string | undefined => {
  if (typeof id !== "string" || id === "") return undefined;
  const lower = id.toLowerCase();
  // An adapter that knows the provider from the endpoint passes the convention's value itself.
  if (wellKnown.has(lower)) return lower;
  for (const [pattern, provider] of sdkProviders) if (pattern.test(lower)) return provider;
  return lower.split(".")[0] || undefined;
};

/**
 * The `gen_ai.provider.name` of a model call: the option when given (a name, or what its function
 * answers for the model id), else the SDK's provider id mapped by `providerOfSdk`, else a guess
 * from well-known model id prefixes, else `unknown`.
 *
 * @example
 * providerOf("claude-sonnet-4-5") // "anthropic"
 * providerOf("anthropic.claude-3-5-sonnet-20241022-v2:0", undefined, "amazon-bedrock") // "aws.bedrock"
 */
export const providerOf = (model: string, option?: ProviderOption, sdkProvider?: string): string => {
  if (typeof option === "string") return option;
  const named = option?.(model);
  if (typeof named === "string" && named !== "") return named;
  const fromSdk = providerOfSdk(sdkProvider);
  if (fromSdk !== undefined) return fromSdk;
  for (const [pattern, provider] of known) if (pattern.test(model)) return provider;
  return "unknown";
};

/**
 * The `error.type` of a GenAI operation (`invoke_agent`, `chat`, `execute_tool`) refused by a hook:
 * the class of the error the adapters raise for it, so the value is the same whichever way the
 * refusal surfaces.
 *
 * @example
 * span.setAttribute("error.type", rejectedErrorType)
 */
export const rejectedErrorType = "OutcomeRejectedError";

/**
 * The `error.type` of a failed or fail-closed outcome: the error's class name (low cardinality),
 * `_OTHER` for values that are not errors; undefined when the outcome is not a failure. For a
 * GenAI `operation` (a tool call, a model call, an agent run) a refusal is an error too: the
 * operation ended without its result, so it reads `rejectedErrorType`. On other points (a `stop`
 * gate's Reject means "keep going") a refusal is a decision, not an error.
 *
 * @example
 * errorTypeOf(Outcome.failed(new TypeError("x"))) // "TypeError"
 */
export const errorTypeOf = (outcome: Outcome<unknown>, operation = false): string | undefined => {
  if (outcome._tag === "Completed") return undefined;
  if (outcome._tag === "Rejected") return outcome.cause !== undefined ? outcome.cause.name : operation ? rejectedErrorType : undefined;
  const error = outcome.error;
  return error instanceof Error ? error.name || error.constructor.name || otherValue : otherValue;
};

/**
 * A hook's decision in the reference's vocabulary: `allow`, `deny`, `transform`, `error` or `timeout`.
 *
 * @example
 * hookOutcome("Reject") // "deny"
 */
export const hookOutcome = (action: TraceAction, failureKind?: string): string =>
  action === "Reject"
    ? "deny"
    : action === "Transform" || action === "Replace"
      ? "transform"
      : action === "Failed"
        ? failureKind === "timeout"
          ? "timeout"
          : "error"
        : "allow";

/**
 * A cap on the distinct values of one attribute: past `limit` new values read `_OTHER`.
 *
 * @example
 * const tools = new Bounded(2); tools.of("a"); tools.of("b"); tools.of("c") // "_OTHER"
 */
export class Bounded {
  private readonly seen = new Set<string>();
  constructor(private readonly limit: number) {}
  of(value: string | undefined): string {
    if (value === undefined || value === "") return otherValue;
    if (this.seen.has(value)) return value;
    if (this.seen.size >= this.limit) return otherValue;
    this.seen.add(value);
    return value;
  }
}
