import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadClaudeSettings } from "../../src/executors/settings-load.ts";
import { anyGroupMatcher } from "../../src/executors/settings-rules.ts";
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
  const settings = {
    allowedHttpHookUrls: [server.url("/hooks/*")],
    hooks: { PreToolUse: [{ hooks: [{ type: "http", url: server.url(path) }] }] },
  };
  const loaded = fromClaudeSettings(settings, { cwd: "/tmp", http: { allow: { loopback: true } } });
  const before = server.requests.length;
  await loaded.stack.run("toolCall", bash("ls"), echoTool);
  return {
    loaded: loaded.hooks.length === 1,
    unused: loaded.unused.map((u) => u.reason),
    seen: server.requests.slice(before).map((r) => r.path),
  };
};

describe("allowedHttpHookUrls", () => {
  it("loads a URL under the allowed path, and the request goes there", async () => {
    expect(await loadAndCall("/hooks/allow")).toEqual({ loaded: true, unused: [], seen: ["/hooks/allow"] });
  });

  it.each([["/hooks/../admin/delete"], ["/hooks/%2e%2e/admin/delete"], ["/hooks/.%2E/admin"], ["/hooks\\..\\admin"]])(
    "matches the URL the request is sent to, so %s (which resolves outside /hooks/) is not loaded and nothing is sent",
    async (path) => {
      const { loaded, unused, seen } = await loadAndCall(path);
      expect(loaded).toBe(false);
      expect(unused).toEqual([expect.stringMatching(/is not in allowedHttpHookUrls$/)]);
      expect(seen).toEqual([]);
    },
  );

  it("still reads the pattern https://hooks.example.com as allowing that URL, which is requested as https://hooks.example.com/", () => {
    const settings = {
      allowedHttpHookUrls: ["https://hooks.example.com"],
      hooks: { PreToolUse: [{ hooks: [{ type: "http", url: "https://hooks.example.com" }] }] },
    };
    expect(fromClaudeSettings(settings, { cwd: "/tmp" }).hooks).toHaveLength(1);
  });

  it("does not let a fragment, which is never sent, be what makes a URL match", () => {
    const settings = {
      allowedHttpHookUrls: ["https://hooks.example.com/a*b"],
      hooks: { PreToolUse: [{ hooks: [{ type: "http", url: "https://hooks.example.com/a#b" }] }] },
    };
    expect(fromClaudeSettings(settings, { cwd: "/tmp" }).hooks).toHaveLength(0);
  });
});

describe("names of settings-defined HTTP hooks", () => {
  it("carry the host, not the URL's path or query, where a webhook keeps its credential", () => {
    const secret = "T0001/B0002/XXXXXXXXXXXXXXXXXXXXXXXX";
    const url = (path: string) => ({ type: "http", url: `https://hooks.slack.com/services/${path}` });
    const settings = { hooks: { PreToolUse: [{ hooks: [url(secret), url("other")] }] } };
    const names = fromClaudeSettings(settings, { cwd: "/tmp" }).hooks.map((h) => h.name);
    expect(names).toEqual([
      expect.stringMatching(/^PreToolUse:http:hooks\.slack\.com#[0-9a-f]{8}$/),
      expect.stringMatching(/^PreToolUse:http:hooks\.slack\.com#[0-9a-f]{8}$/),
    ]);
    expect(names[0]).not.toBe(names[1]);
  });
});

describe("names of settings-defined command hooks", () => {
  const namesOf = (...commands: (string | { command: string; args: string[] })[]) =>
    fromClaudeSettings(
      { hooks: { PreToolUse: [{ hooks: commands.map((c) => ({ type: "command", ...(typeof c === "string" ? { command: c } : c) })) }] } },
      { cwd: "/tmp" },
    ).hooks.map((h) => h.name);

  it("carry the script or the program, never a variable assigned before it, whose value may be a credential", () => {
    expect(namesOf("API_TOKEN=sk-live-123 node .claude/hooks/guard.mjs", "A=1 B=2 ./notify.sh --fast")).toEqual([
      "PreToolUse:command:guard.mjs",
      "PreToolUse:command:notify.sh",
    ]);
  });

  it("carry the interpreter, not inline code or a URL given to it", () => {
    const names = namesOf(
      `node -e "fetch('https://hooks.slack.com/services/T0/B0/secret')"`,
      `bash -c 'curl -H "Authorization: Bearer sk-live-123" https://example.com/x'`,
      { command: "python3", args: ["-c", "import os; os.system('curl https://example.com/T0/secret')"] },
    );
    expect(names).toEqual(["PreToolUse:command:node", "PreToolUse:command:bash", "PreToolUse:command:python3"]);
  });
});

describe("the matcher of a handler defined in several groups", () => {
  const at = (matcher: string | undefined, file = "a.json") => ({ matcher, file, pointer: "/hooks/PreToolUse/0/matcher" });
  const matches = (groups: ReturnType<typeof at>[], subjects: string[], narrow = false) => {
    const m = anyGroupMatcher(groups, narrow, "guard");
    return subjects.filter((s) => m === undefined || m.matchSubject(s));
  };

  it("matches what any group's matcher matches, each read in its own grammar", () => {
    expect(
      matches([at("Bash, Edit"), at("^mcp__"), at("Notebook(Edit|Read)")], ["Bash", "Edit", "mcp__x", "xmcp__", "NotebookRead", "Write"]),
    ).toEqual(["Bash", "Edit", "mcp__x", "NotebookRead"]);
    expect(matches([at("^a$"), at("b$")], ["a", "ab", "b", "ba"])).toEqual(["a", "ab", "b"]);
    expect(matches([at("rate_limit"), at("server error")], ["rate_limit", "server error", "server"], true)).toEqual([
      "rate_limit",
      "server error",
    ]);
  });

  it('matches everything when any group\'s matcher is absent, "" or "*"', () => {
    for (const all of [undefined, "", "*"]) expect(anyGroupMatcher([at("Bash"), at(all)], false, "guard")).toBeUndefined();
  });

  it("keeps each matcher's group names to itself", () => {
    expect(matches([at("(?<tool>Bash)"), at("(?<tool>Edit)")], ["Bash", "Edit", "Read"])).toEqual(["Bash", "Edit"]);
  });

  it("refuses a back-reference, which no linear-time engine runs, naming the matcher's own file and pointer", () => {
    expect(() => anyGroupMatcher([at("Bash"), at("(x)\\1", "b.json")], false, "guard")).toThrow(
      /^b\.json: \/hooks\/PreToolUse\/0\/matcher: hook "guard": match "\(x\)\\1" uses a back-reference/,
    );
  });

  it("checks each matcher on its own: two under the length limit pass, an invalid one is named by its own file and pointer", () => {
    const long = (server: string) => `^mcp__${server}__(${Array.from({ length: 40 }, (_, i) => `tool_${i}`).join("|")})$`;
    expect(matches([at(long("github")), at(long("jira"))], ["mcp__jira__tool_7", "mcp__slack__tool_7"])).toEqual(["mcp__jira__tool_7"]);
    expect(() => anyGroupMatcher([at("Bash"), at("[", "b.json")], false, "guard")).toThrow(
      /^b\.json: \/hooks\/PreToolUse\/0\/matcher: hook "guard": match "\[" is not a valid regular expression/,
    );
    expect(() => anyGroupMatcher([at("Bash"), at("x".repeat(1025), "b.json")], false, "guard")).toThrow(/^b\.json: .*the limit is 1024/);
  });

  it("is what loadClaudeSettings keeps for each handler: every group's matcher, with its file and pointer", () => {
    const handler = { type: "command", command: "true" };
    const layer = (file: string, matcher: string) => ({
      file,
      settings: { hooks: { PreToolUse: [{ hooks: [] }, { matcher, hooks: [handler] }] } },
    });
    const [entry] = loadClaudeSettings([layer("user.json", "Bash"), layer("project.json", "^mcp__")]).entries;
    expect(entry?.matchers).toEqual([
      { matcher: "Bash", file: "user.json", pointer: "/hooks/PreToolUse/1/matcher" },
      { matcher: "^mcp__", file: "project.json", pointer: "/hooks/PreToolUse/1/matcher" },
    ]);
  });
});
