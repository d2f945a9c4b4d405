import { describe, expect, it } from "vitest";
import { checkHeader, childEnv, interpolateHeader } from "../../src/executors/env.ts";
import { httpHook } from "../../src/executors/http.ts";

const source = { PATH: "/bin", HOME: "/home/u", AWS_SECRET_ACCESS_KEY: "secret", TOKEN: "t0k", CI: "true" };

describe("childEnv", () => {
  it("copies only allowlisted variables, never secrets", () => {
    expect(childEnv({ source })).toEqual({ PATH: "/bin", HOME: "/home/u" });
  });

  it("adds named variables and explicit values", () => {
    expect(childEnv({ source, allowedEnvVars: ["CI"], env: { CLAUDE_PROJECT_DIR: "/repo" } })).toEqual({
      PATH: "/bin",
      HOME: "/home/u",
      CI: "true",
      CLAUDE_PROJECT_DIR: "/repo",
    });
  });
});

describe("interpolateHeader", () => {
  it("expands $VAR and ${VAR} from the allowlist only; others become empty", () => {
    expect(interpolateHeader("Authorization", "Bearer $TOKEN", ["TOKEN"], source)).toBe("Bearer t0k");
    expect(interpolateHeader("X-Both", "${TOKEN}-$AWS_SECRET_ACCESS_KEY", ["TOKEN"], source)).toBe("t0k-");
  });

  it("refuses a value that would smuggle a header through CR or LF, from config or from the environment", () => {
    expect(() => checkHeader("X-Id", "a\r\nInjected: 1")).toThrow(/CR, LF/);
    expect(() => interpolateHeader("X-Id", "$EVIL", ["EVIL"], { EVIL: "x\nSet-Cookie: y" })).toThrow(/CR, LF/);
  });

  it("refuses a header name that is not a token", () => {
    expect(() => checkHeader("Bad Name", "v")).toThrow(/not a valid token/);
  });

  it("refuses, naming the header, a value HTTP cannot carry: another control character, or a character outside Latin-1", () => {
    expect(() => checkHeader("X-Id", "a\u0001b")).toThrow(/header X-Id contains a control character/);
    expect(() => interpolateHeader("X-Id", "$V", ["V"], { V: "caf\u0113" })).toThrow(/header X-Id contains .*outside Latin-1/);
    expect(checkHeader("X-Id", "caf\u00e9\tok")).toBeUndefined();
  });

  it("refuses, when the hook is made, a header that would change how the request is framed", () => {
    for (const name of ["Content-Length", "transfer-encoding", "Connection"])
      expect(() => httpHook({ event: "PreToolUse", url: "https://policy.example/", headers: { [name]: "x" } })).toThrow(
        new RegExp(`httpHook: header ${name} is set by the request itself`),
      );
  });
});
