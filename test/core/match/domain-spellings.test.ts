/**
 * Spellings of one address in a URL, checked against the real thing: Node's own `fetch` to a server
 * on 127.0.0.1. Every spelling that reaches the server is matched by `domain:127.0.0.1` (a deny
 * cannot be spelt past) and allowed by it; every spelling of another host reaches nothing here and is
 * matched by neither. Names a resolver maps to an address (`localhost`) are a different matter: a
 * domain rule compares names, not the machines they lead to.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileCondition } from "../../../src/core/match/condition.ts";
import { compileAllowRules } from "../../../src/middleware/tool-rules.ts";

/** [host as the URL spells it, whether it is 127.0.0.1] */
const corpus: readonly (readonly [string, boolean])[] = [
  ["127.0.0.1", true],
  ["127.0.0.1.", true],
  ["2130706433", true],
  ["0x7f000001", true],
  ["0x7f.1", true],
  ["0177.0.0.1", true],
  ["127.1", true],
  ["[::ffff:127.0.0.1]", true],
  ["[::ffff:7f00:1]", true],
  ["[0:0:0:0:0:ffff:7f00:1]", true],
  ["[0000:0000:0000:0000:0000:FFFF:127.0.0.1]", true],
  // not 127.0.0.1: other addresses, and mapped forms the kernel does not route to it
  ["127.0.0.2", false],
  ["[::ffff:0:7f00:1]", false],
  ["[::ffff:7f00:2]", false],
  ["[::1]", false],
  ["[64:ff9b::7f00:1]", false],
];

let server: Server;
let port = 0;
beforeAll(async () => {
  server = createServer((_req, res) => res.end("reached"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const reaches = async (url: string): Promise<boolean> => {
  try {
    return (await (await fetch(url, { signal: AbortSignal.timeout(2000) })).text()) === "reached";
  } catch {
    return false;
  }
};

describe("a domain rule on an address matches every spelling of it", () => {
  const deny = compileCondition("WebFetch", "domain:127.0.0.1");
  const allow = compileAllowRules(["WebFetch(domain:127.0.0.1)"], "policy");
  it.each(corpus)("%s", async (host, same) => {
    const url = `http://${host}:${port}/`;
    // The label is checked against the real thing before the rule is.
    expect(await reaches(url), "fetch reaches 127.0.0.1").toBe(same);
    expect(deny(url), "deny").toBe(same);
    expect(allow({ id: "1", name: "WebFetch", input: { url } }) !== undefined, "allow").toBe(same);
  });
});
