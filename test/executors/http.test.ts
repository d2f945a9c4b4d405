import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpHook, type HttpHookOptions } from "../../src/executors/http.ts";
import { BackgroundQueue } from "../../src/executors/queue.ts";
import type { Resolver } from "../../src/executors/ssrf.ts";
import { startHookServer, type HookServer } from "../fixtures/http/server.ts";
import { bash, echoTool, notices } from "./helpers.ts";
import { agentStack } from "./stack-helpers.ts";

let server: HookServer;
beforeAll(async () => {
  server = await startHookServer();
});
afterAll(() => server.close());

const loopback = { loopback: true } as const;
const hook = (path: string, over: Partial<HttpHookOptions<"PreToolUse">> = {}) =>
  httpHook({ event: "PreToolUse", url: server.url(path), allow: loopback, timeoutMs: 2000, ...over });
const run = async (h: ReturnType<typeof hook>, signal?: AbortSignal) => {
  const context: string[] = [];
  const outcome = await agentStack()
    .use("toolCall", h)
    .run("toolCall", bash("ls"), echoTool, { onContext: (t) => context.push(t), signal, sessionId: "s1" });
  return { outcome, context, reason: (outcome as { reason?: string }).reason };
};

describe("httpHook answers", () => {
  it("allows on an allow answer and rejects on a deny answer", async () => {
    expect((await run(hook("/allow"))).outcome._tag).toBe("Completed");
    expect((await run(hook("/deny"))).outcome).toMatchObject({ _tag: "Rejected", reason: "denied by policy server" });
  });

  it("treats a 2xx with an empty body as no decision", async () => {
    expect((await run(hook("/empty"))).outcome._tag).toBe("Completed");
  });

  it("POSTs the event JSON with allowlisted header interpolation only", async () => {
    const before = server.requests.length;
    const h = hook("/context", {
      headers: { Authorization: "Bearer $HOOK_TOKEN", "X-Leak": "${HOOK_SECRET}" },
      allowedEnvVars: ["HOOK_TOKEN"],
      envSource: { HOOK_TOKEN: "t0k", HOOK_SECRET: "s3cret" },
    });
    const { context } = await run(h);
    const req = server.requests[before]!;
    expect(req.headers["content-type"]).toBe("application/json");
    expect(req.headers.authorization).toBe("Bearer t0k");
    expect(req.headers["x-leak"]).toBe("");
    expect(JSON.parse(req.body)).toMatchObject({
      hook_event_name: "PreToolUse",
      session_id: "s1",
      tool_name: "Bash",
      tool_input: { command: "ls" },
    });
    expect(context).toEqual(["seen PreToolUse"]);
  });

  it.each([
    ["a 500", "/500", /answered HTTP 500/],
    ["malformed JSON", "/malformed", /printed invalid JSON/],
    ["plain text", "/text", /not a JSON object/],
    ["a body over the cap", "/huge", /larger than 1048576 bytes/],
  ])("fails closed on %s", async (_what, path, message) => {
    const { outcome, reason } = await run(hook(path));
    expect(outcome._tag).toBe("Rejected");
    expect(reason).toMatch(message);
  });
});

describe("httpHook deadlines", () => {
  it("fails when the server accepts but never answers (header timeout)", async () => {
    const { reason } = await run(hook("/hang", { headersTimeoutMs: 200 }));
    expect(reason).toMatch(/no response headers .* within 200 ms/);
  });

  it("fails when the body never completes, or drips forever (body timeout)", async () => {
    expect((await run(hook("/hang-body", { bodyTimeoutMs: 200 }))).reason).toMatch(/did not complete within 200 ms/);
    expect((await run(hook("/drip", { bodyTimeoutMs: 200 }))).reason).toMatch(/did not complete within 200 ms/);
  });

  it("fails when the connection cannot be made in time", async () => {
    // A resolver that never answers stands in for a black-holed SYN.
    const never: Resolver = () => new Promise(() => {});
    const { reason } = await run(
      httpHook({ event: "PreToolUse", url: "http://slow.test/", resolver: never, connectTimeoutMs: 150, timeoutMs: 2000 }),
    );
    expect(reason).toMatch(/could not connect to http:\/\/slow.test within 150 ms/);
  });

  it("drops the request when the run is cancelled", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const { outcome } = await run(hook("/hang"), controller.signal);
    expect(outcome._tag).not.toBe("Completed");
  });
});

describe("httpHook SSRF guard", () => {
  it("refuses loopback unless it is allowed, before sending anything", async () => {
    const before = server.requests.length;
    const { reason } = await run(hook("/allow", { allow: {} }));
    expect(reason).toMatch(/refused to connect to 127.0.0.1: loopback address not allowed/);
    expect(server.requests.length).toBe(before);
  });

  it("never follows a redirect, to a private address or anywhere", async () => {
    expect((await run(hook("/redirect-private"))).reason).toMatch(/answered 307; redirects are never followed/);
    expect((await run(hook("/redirect-metadata"))).reason).toMatch(/answered 302/);
    expect(server.canaryHits()).toBe(0);
  });

  it.each([["0x7f000001"], ["2130706433"], ["0177.0.0.1"]])("sees through the odd IPv4 spelling %s in a URL", async (host) => {
    expect((await run(hook("", { url: `http://${host}:${server.port}/allow`, allow: {} }))).reason).toMatch(/loopback address not allowed/);
    expect((await run(hook("", { url: `http://${host}:${server.port}/allow` }))).outcome._tag).toBe("Completed");
  });

  it("refuses an IPv4-mapped IPv6 loopback literal", async () => {
    const { reason } = await run(hook("", { url: `http://[::ffff:127.0.0.1]:${server.port}/allow`, allow: {} }));
    expect(reason).toMatch(/refused to connect to \[::ffff:7f00:1\].*loopback/);
  });

  it("checks every resolution at connect time: a rebinding hostname is refused on its second answer", async () => {
    let calls = 0;
    const rebinding: Resolver = async () => [{ address: calls++ === 0 ? "127.0.0.1" : "10.0.0.7", family: 4 }];
    const h = hook("", { url: `http://hooks.test:${server.port}/allow`, resolver: rebinding });
    expect((await run(h)).outcome._tag).toBe("Completed");
    expect((await run(h)).reason).toMatch(/hooks.test \(10.0.0.7\): private address not allowed/);
  });

  it.each([["2130706433"], ["0x7f000001"]])("refuses a resolver answering the odd spelling %s", async (address) => {
    const odd: Resolver = async () => [{ address, family: 4 }];
    expect((await run(hook("", { url: `http://hooks.test:${server.port}/allow`, resolver: odd }))).reason).toMatch(/not a canonical IP/);
  });

  it("refuses CR/LF in configured headers and in interpolated values, and credentials in the URL", async () => {
    expect(() => hook("/allow", { headers: { "X-A": "a\r\nX-Injected: 1" } })).toThrow(/CR, LF/);
    const h = hook("/allow", { headers: { "X-A": "$V" }, allowedEnvVars: ["V"], envSource: { V: "a\nb" } });
    expect((await run(h)).reason).toMatch(/CR, LF/);
    expect(() => hook("", { url: `http://good.example@127.0.0.1:${server.port}/allow` })).toThrow(/credentials/);
  });
});

describe("httpHook fire-and-forget", () => {
  it("never blocks the chain, queues at most its limit, counts drops, and flush waits for the rest", async () => {
    const n = notices();
    const queue = new BackgroundQueue({ limit: 2, concurrency: 1 });
    const h = httpHook({
      event: "PostToolUse",
      url: server.url("/hang"),
      allow: loopback,
      async: true,
      queue,
      timeoutMs: 150,
      onNotice: n.sink,
    });
    const stack = agentStack().use("toolCall", h);
    for (let i = 0; i < 5; i++) expect((await stack.run("toolCall", bash(`echo ${i}`), echoTool))._tag).toBe("Completed");
    expect(queue.dropped).toBe(3);
    expect(n.list.filter((x) => x.kind === "dropped")).toHaveLength(3);
    await stack.flush();
    expect(queue.size).toBe(0);
    expect(n.list.filter((x) => x.kind === "background-failure")).toHaveLength(2);
  });
});

describe("httpHook names", () => {
  // Webhook URLs (Slack, Discord, Zapier) carry their credential in the path or the query.
  const secret = "sk_live_4eC39HqLyjWDarjtT1zdp7dc";

  it("leaves the URL's path and query out of its default name, and so out of the reason a failure gives", async () => {
    const h = hook(`/api/webhooks/1234567890/${secret}?token=${secret}`);
    expect(h.name).toMatch(/^http:127\.0\.0\.1:\d+#[0-9a-f]{8}$/);
    const { outcome, reason } = await run(h);
    expect(outcome._tag).toBe("Rejected");
    expect(reason).toMatch(/answered HTTP 404/);
    expect(reason).not.toContain(secret);
    expect(server.requests.at(-1)!.path).toBe(`/api/webhooks/1234567890/${secret}`);
  });

  it("gives two hooks on one host different default names, and the same URL the same name", () => {
    expect(hook("/a").name).not.toBe(hook("/b").name);
    expect(hook("/a").name).toBe(hook("/a").name);
  });

  it("keeps a name given explicitly", () => {
    expect(hook(`/x/${secret}`, { name: "policy" }).name).toBe("policy");
  });
});
