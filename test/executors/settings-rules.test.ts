import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromClaudeSettings } from "../../src/executors/settings.ts";
import { startHookServer, type HookServer } from "../fixtures/http/server.ts";
import { bash, echoTool } from "./helpers.ts";

let server: HookServer;
beforeAll(async () => {
  server = await startHookServer();
});
afterAll(() => server.close());

/** Load one PreToolUse HTTP hook under `allowedHttpHookUrls: [<server>/hooks/*]`, run one Bash call, and say what the server saw. */
const loadAndCall = async (path: string) => {
  const settings = { allowedHttpHookUrls: [server.url("/hooks/*")], hooks: { PreToolUse: [{ hooks: [{ type: "http", url: server.url(path) }] }] } };
  const loaded = fromClaudeSettings(settings, { cwd: "/tmp", http: { allow: { loopback: true } } });
  const before = server.requests.length;
  await loaded.stack.run("toolCall", bash("ls"), echoTool);
  return { loaded: loaded.hooks.length === 1, unused: loaded.unused.map((u) => u.reason), seen: server.requests.slice(before).map((r) => r.path) };
};

describe("allowedHttpHookUrls", () => {
  it("loads a URL under the allowed path, and the request goes there", async () => {
    expect(await loadAndCall("/hooks/allow")).toEqual({ loaded: true, unused: [], seen: ["/hooks/allow"] });
  });

  it.each([
    ["/hooks/../admin/delete"],
    ["/hooks/%2e%2e/admin/delete"],
    ["/hooks/.%2E/admin"],
    ["/hooks\\..\\admin"],
  ])("matches the URL the request is sent to, so %s (which resolves outside /hooks/) is not loaded and nothing is sent", async (path) => {
    const { loaded, unused, seen } = await loadAndCall(path);
    expect(loaded).toBe(false);
    expect(unused).toEqual([expect.stringMatching(/is not in allowedHttpHookUrls$/)]);
    expect(seen).toEqual([]);
  });

  it("still reads the pattern https://hooks.example.com as allowing that URL, which is requested as https://hooks.example.com/", () => {
    const settings = { allowedHttpHookUrls: ["https://hooks.example.com"], hooks: { PreToolUse: [{ hooks: [{ type: "http", url: "https://hooks.example.com" }] }] } };
    expect(fromClaudeSettings(settings, { cwd: "/tmp" }).hooks).toHaveLength(1);
  });

  it("does not let a fragment, which is never sent, be what makes a URL match", () => {
    const settings = { allowedHttpHookUrls: ["https://hooks.example.com/a*b"], hooks: { PreToolUse: [{ hooks: [{ type: "http", url: "https://hooks.example.com/a#b" }] }] } };
    expect(fromClaudeSettings(settings, { cwd: "/tmp" }).hooks).toHaveLength(0);
  });
});

describe("names of settings-defined HTTP hooks", () => {
  it("carry the host, not the URL's path or query, where a webhook keeps its credential", () => {
    const secret = "T0001/B0002/XXXXXXXXXXXXXXXXXXXXXXXX";
    const url = (path: string) => ({ type: "http", url: `https://hooks.slack.com/services/${path}` });
    const settings = { hooks: { PreToolUse: [{ hooks: [url(secret), url("other")] }] } };
    const names = fromClaudeSettings(settings, { cwd: "/tmp" }).hooks.map((h) => h.name);
    expect(names).toEqual([expect.stringMatching(/^PreToolUse:http:hooks\.slack\.com#[0-9a-f]{8}$/), expect.stringMatching(/^PreToolUse:http:hooks\.slack\.com#[0-9a-f]{8}$/)]);
    expect(names[0]).not.toBe(names[1]);
  });
});
