/**
 * `agent-onion serve` answering the real Claude Code's http hooks. Claude Code lets a tool call
 * run when its http hook cannot be reached, so serve must accept connections from its start,
 * even while the module is still loading.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, it } from "vitest";
import { bashTurn, ranCommand, runClaudeCode } from "../support/claude-code/run-claude-code.ts";
import { describeClaudeCode } from "../support/claude-code/suite.ts";
import { bin, root } from "../cli/helpers.ts";

/** A port free on 127.0.0.1 now. */
const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

describeClaudeCode("agent-onion serve under the real Claude Code", () => {
  const dir = mkdtempSync(join(tmpdir(), "agent-onion-serve-cc-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("blocks a Bash call that Claude Code asks about while serve is still loading the module", async ({ expect }) => {
    const gate = join(dir, "gate");
    const module = join(dir, "slow-guard.ts");
    // The load holds its process (as a slow synchronous import does) until the gate exists.
    writeFileSync(
      module,
      `import { existsSync } from "node:fs";\nimport { createAgentStack, Reject } from ${JSON.stringify(join(root, "src", "index.ts"))};\nprocess.stderr.write("slow guard: loading\\n");\nconst nap = new Int32Array(new SharedArrayBuffer(4));\nwhile (!existsSync(${JSON.stringify(gate)})) Atomics.wait(nap, 0, 0, 20);\nexport default createAgentStack().use("toolCall", { name: "no-bash", before: (call) => (call.name === "Bash" ? Reject("SLOW-GUARD-DENY") : undefined) });\n`,
    );
    const port = await freePort();
    const serve = spawn(process.execPath, [bin, "serve", "--no-watch", "--port", String(port), module], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    serve.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const exited = new Promise<number | null>((r) => serve.once("exit", (code) => r(code)));
    // Claude Code runs in a namespace with loopback only: its hook connects to a Unix socket here,
    // which opens the gate (the module loads from then on) and passes the connection to serve.
    const socket = join(dir, "serve.sock");
    const link = createServer((client) => {
      writeFileSync(gate, "");
      const upstream = connect(port, "127.0.0.1");
      client.pipe(upstream).pipe(client);
      const drop = (): void => {
        client.destroy();
        upstream.destroy();
      };
      client.on("error", drop);
      upstream.on("error", drop);
    });
    await new Promise<void>((resolve) => link.listen(socket, resolve));
    try {
      while (!stderr.includes("slow guard: loading")) await new Promise((r) => setTimeout(r, 20));
      const url = `http://127.0.0.1:${port}/`;
      const run = await runClaudeCode({
        settings: { hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "http", url }] }] } },
        forwards: [{ port, socket }],
        turns: [bashTurn(ranCommand("1")), "Done."],
      });
      expect(run.executed).toEqual([]);
      expect(run.toolResults).toMatchObject([{ text: "PreToolUse:Bash hook error: SLOW-GUARD-DENY", isError: true }]);
    } finally {
      serve.kill("SIGTERM");
      expect(await exited).toBe(0);
      await new Promise<void>((resolve) => link.close(() => resolve()));
    }
  });
});
