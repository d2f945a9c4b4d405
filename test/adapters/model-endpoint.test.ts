import { describe, expect, it } from "vitest";
import { openAiClientProvider, serverOf } from "../../src/adapters/model-endpoint.ts";

describe("serverOf", () => {
  it("gives a base URL's host and port, the scheme's default port when the URL names none", () => {
    expect(serverOf("https://api.openai.com/v1")).toEqual({ address: "api.openai.com", port: 443 });
    expect(serverOf("http://127.0.0.1:8080/v1")).toEqual({ address: "127.0.0.1", port: 8080 });
    expect(serverOf("http://localhost/v1")).toEqual({ address: "localhost", port: 80 });
    expect(serverOf(new URL("https://[::1]:9443/v1"))).toEqual({ address: "::1", port: 9443 });
  });

  it("gives nothing for what is not an http(s) URL", () => {
    for (const url of [undefined, "", "not a url", "ftp://example.com", 42, {}]) expect(serverOf(url)).toBeUndefined();
  });
});

describe("openAiClientProvider", () => {
  it("names the provider of well-known hosts an OpenAI client may call, and openai otherwise", () => {
    const at = (address: string) => openAiClientProvider({ address, port: 443 });
    expect(at("contoso.openai.azure.com")).toBe("azure.ai.openai");
    expect(at("generativelanguage.googleapis.com")).toBe("gcp.gemini");
    expect(at("api.groq.com")).toBe("groq");
    expect(at("api.deepseek.com")).toBe("deepseek");
    expect(at("api.x.ai")).toBe("x_ai");
    expect(at("api.openai.com")).toBe("openai");
    expect(at("127.0.0.1")).toBe("openai");
    expect(openAiClientProvider(undefined)).toBe("openai");
  });
});
