/**
 * A Claude Agent SDK agent guarded by one agent-onion stack: a policy refuses `rm`, redaction keeps
 * a secret of the prompt away from the model, a deploy needs a person's approval. With durable
 * approvals, the approval pauses the run through Claude Code's own `defer`; the pending approval is
 * plain JSON with a signed token, and `resume` continues the session with the person's answer (here
 * in the same process; any process sharing the store, such as Redis, and Claude Code's session
 * files can). Offline: the SDK runs its bundled Claude Code against a scripted stand-in for the
 * Messages API on 127.0.0.1.
 *
 * Run: node --import tsx examples/claude-agent-sdk.ts
 * @expect refused: Tool "Bash" is blocked by policy: it matches deny rule "Bash(rm *)"
 * @expect the model never saw the key: true
 * @expect paused: Bash ./deploy.sh (approval: deploy to production?)
 * @expect resumed: deployed, and the model answered "Deployed."
 * @expect tokens through modelCall: 36 in, 21 out
 */
import * as sdk from "@anthropic-ai/claude-agent-sdk";
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { claudeAgentGuard, claudeModelGateway } from "agent-onion/claude-agent-sdk";
import { MemoryStore, Replace, approval, createAgentStack, durableApprovals, redaction, toolPolicy, withMiddleware } from "agent-onion";

// A stand-in for api.anthropic.com: each model call gets the next scripted answer, streamed as the API streams.
const script = [
  { tool: { command: "rm -rf build", description: "clean" } },
  { tool: { command: "./deploy.sh", description: "deploy" } },
  { text: "Deployed." },
];
const seen: string[] = [];
const api = createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    seen.push(body);
    const turn = script.shift() ?? { text: "Done." };
    const send = (type: string, data: object) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    res.writeHead(200, { "content-type": "text/event-stream" });
    send("message_start", {
      message: {
        id: `msg_${seen.length}`,
        type: "message",
        role: "assistant",
        model: "claude-sonnet-5",
        content: [],
        stop_reason: null,
        usage: { input_tokens: 12, output_tokens: 1 },
      },
    });
    if ("tool" in turn) {
      send("content_block_start", { index: 0, content_block: { type: "tool_use", id: `toolu_${seen.length}`, name: "Bash", input: {} } });
      send("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: JSON.stringify(turn.tool) } });
    } else {
      send("content_block_start", { index: 0, content_block: { type: "text", text: "" } });
      send("content_block_delta", { index: 0, delta: { type: "text_delta", text: turn.text } });
    }
    send("content_block_stop", { index: 0 });
    send("message_delta", { delta: { stop_reason: "tool" in turn ? "tool_use" : "end_turn" }, usage: { output_tokens: 7 } });
    send("message_stop", {});
    res.end();
  });
});
await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));

// The project the agent works in, and a Claude Code config directory of its own (sessions are kept there).
const project = mkdtempSync(join(tmpdir(), "agent-onion-example-"));
process.env.CLAUDE_CONFIG_DIR = join(project, ".claude-home");
writeFileSync(join(project, "deploy.sh"), "#!/bin/sh\ntouch deployed\n");
chmodSync(join(project, "deploy.sh"), 0o755);

// One stack for everything: guards on tool calls, redaction of what goes to the model, an approval, token counts.
let input = 0;
let output = 0;
// Durable approvals: a hook that asks pauses the run; MemoryStore keeps it in this process, a RedisStore across processes.
const approvals = durableApprovals({ store: new MemoryStore(), key: "an-example-key-of-at-least-32-bytes!" });
const stack = withMiddleware(
  createAgentStack({ approval: approvals }),
  toolPolicy({ deny: ["Bash(rm *)"] }),
  redaction(),
  approval({ match: "Bash(./deploy*)", reason: () => "deploy to production?" }),
)
  .use("modelCall", { name: "tokens", after: (r) => void ((input += r.usage.inputTokens), (output += r.usage.outputTokens)) })
  // The stack's toolCall hooks decide about every call, so Claude Code's own permission prompt is answered yes.
  .use("permissionRequest", {
    name: "stack-decides",
    before: (request) => Replace({ behavior: "allow" as const, updatedInput: { ...request.call.input } }),
  });

const gateway = await claudeModelGateway(stack, { upstream: `http://127.0.0.1:${(api.address() as AddressInfo).port}` });
const guard = claudeAgentGuard(stack);
const options = guard.options({
  cwd: project,
  settingSources: [],
  env: gateway.env({ ...process.env, ANTHROPIC_API_KEY: "sk-ant-offline", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" }),
});

try {
  let paused;
  // Claude Code cannot take a rewritten prompt from a hook: the guard runs userPrompt (the redaction) before it is sent.
  const prompt = await guard.prompt("Clean the build, then deploy with key sk-live-9f8e7d6c5b4a3210.");
  for await (const message of sdk.query({ prompt, options })) {
    if (message.type === "user" && Array.isArray(message.message.content))
      for (const block of message.message.content)
        if (block.type === "tool_result" && block.is_error)
          console.log(`refused: ${String(block.content).replace(/^PreToolUse:Bash hook error: /, "")}`);
    if (message.type === "result") paused = guard.paused(message);
  }
  console.log(`the model never saw the key: ${!seen.some((b) => b.includes("sk-live-9f8e7d6c5b4a3210"))}`);
  if (paused === undefined) throw new Error("the deploy did not pause for approval");
  console.log(`paused: ${paused.toolUse.name} ${String(paused.toolUse.input.command)} (${paused.hook}: ${paused.reason})`);

  // Later, perhaps elsewhere: the person approved.
  const record = JSON.parse(JSON.stringify(paused));
  let answer = "";
  for await (const message of await guard.resume(sdk, record, { decision: "approve", by: "alice" }, options))
    if (message.type === "result" && message.subtype === "success") answer = message.result;
  console.log(`resumed: ${existsSync(join(project, "deployed")) ? "deployed" : "not deployed"}, and the model answered "${answer}"`);
  console.log(`tokens through modelCall: ${input} in, ${output} out`);
} finally {
  await gateway.close();
  api.close();
  rmSync(project, { recursive: true, force: true });
}
