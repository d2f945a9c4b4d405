/**
 * What an adapter can tell telemetry about where a model call goes, read off the framework's own
 * model object: the endpoint of its base URL (`server.address`, `server.port`) and, for an OpenAI
 * client, which provider that endpoint is (an OpenAI client pointed at Azure is Azure OpenAI).
 */
import type { ModelServer } from "../agent/types.ts";

/**
 * The server of a base URL: its host and port (the scheme's default when the URL names none);
 * undefined for anything that is not an http(s) URL.
 *
 * @example
 * serverOf("https://api.openai.com/v1") // { address: "api.openai.com", port: 443 }
 * serverOf("http://127.0.0.1:8080/v1") // { address: "127.0.0.1", port: 8080 }
 */
export const serverOf = (url: unknown): ModelServer | undefined => {
  if (typeof url !== "string" && !(url instanceof URL)) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return undefined;
  const port = parsed.port !== "" ? Number(parsed.port) : parsed.protocol === "https:" ? 443 : 80;
  // URL keeps an IPv6 host in brackets; the convention's `server.address` is the address itself.
  return { address: parsed.hostname.replace(/^\[(.*)\]$/, "$1"), port };
};

// Hosts whose API an OpenAI client may be pointed at, and the convention's provider of each
// (`gcp.gemini` is named by the convention for `generativelanguage.googleapis.com`).
const openAiCompatibleHosts: readonly (readonly [RegExp, string])[] = [
  [/(^|\.)openai\.azure\.com$/, "azure.ai.openai"],
  [/(^|\.)services\.ai\.azure\.com$/, "azure.ai.inference"],
  [/(^|\.)models\.ai\.azure\.com$/, "azure.ai.inference"],
  [/^generativelanguage\.googleapis\.com$/, "gcp.gemini"],
  [/(^|\.)aiplatform\.googleapis\.com$/, "gcp.vertex_ai"],
  [/^api\.groq\.com$/, "groq"],
  [/^api\.deepseek\.com$/, "deepseek"],
  [/^api\.x\.ai$/, "x_ai"],
  [/^api\.mistral\.ai$/, "mistral_ai"],
  [/^api\.perplexity\.ai$/, "perplexity"],
  [/^api\.moonshot\.(ai|cn)$/, "moonshot_ai"],
  [/(^|\.)anthropic\.com$/, "anthropic"],
];

/**
 * The `gen_ai.provider.name` of a call made with an OpenAI API client to `server`: the provider of
 * a well-known host, else `openai` (the API the client speaks; the convention lets the name be
 * the client's best knowledge when a proxy or gateway relays the call).
 *
 * @example
 * openAiClientProvider({ address: "my-resource.openai.azure.com", port: 443 }) // "azure.ai.openai"
 * openAiClientProvider(undefined) // "openai"
 */
export const openAiClientProvider = (server: ModelServer | undefined): string => {
  if (server !== undefined) {
    const host = server.address.toLowerCase();
    for (const [pattern, provider] of openAiCompatibleHosts) if (pattern.test(host)) return provider;
  }
  return "openai";
};
