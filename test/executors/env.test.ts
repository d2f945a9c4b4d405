import { describe, expect, it } from "vitest";
import { checkHeader, childEnv, interpolateHeader } from "../../src/executors/env.ts";

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
});
