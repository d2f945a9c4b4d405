/**
 * agent-onion demo: a realistic coding-agent session in the terminal, with a scripted model
 * (no network, no keys). It shows a guardrail blocking a destructive command, a rewritten tool
 * input, a cached result, a stop gate keeping the agent going once, metrics per point, and the
 * decision trace.
 *
 * Run: npm run demo
 * @expect ✗ rejected by no-rm-rf: Destructive command blocked
 */
import { Trace, createAgent, createAgentStack, type AgentStack } from "../src/index.ts";
import { brief, c, heading, say, write } from "./demo/print.ts";
import { scriptedModel, userPrompt } from "./demo/script.ts";
import { cachedReads, guardrails, lockfileInstalls, metrics, projectContext, testsBeforeDone, toolTranscript } from "./demo/sections.ts";
import { workspace } from "./demo/workspace.ts";

/** The hook sections, in the order they are added; add yours here. */
export const sections: readonly ((stack: AgentStack) => AgentStack)[] = [
  projectContext, toolTranscript, guardrails, lockfileInstalls, cachedReads, testsBeforeDone,
];

const main = async (): Promise<void> => {
  const trace = new Trace();
  const { stack, table } = metrics(sections.reduce((s, section) => section(s), createAgentStack()));
  const model = scriptedModel();
  const { tools, reads, commands } = workspace();
  let lastStep = -1;
  const agent = createAgent({
    model, stack, tools, trace, name: "coder", stream: true,
    system: "You are a careful coding agent.",
    onPart: (part, info) => {
      if (part.type === "text-delta") {
        if (info.step !== lastStep) write(`${c.dim(`${info.path.join("/")} ›`)} `);
        lastStep = info.step;
        write(c.bold(part.text));
      }
      if (part.type === "finish" && lastStep === info.step) write("\n");
    },
  });

  heading("session");
  const session = await agent.session({ source: "startup", metadata: { user: "ada", roles: ["developer"] } });
  say(`${c.dim("user ›")} ${userPrompt}\n`);
  const turn = await session.prompt(userPrompt);
  await session.close("prompt_input_exit");
  await stack.flush();

  heading("result");
  say(`status ${turn.status}, ${turn.steps} steps, finish reason ${turn.finishReason}, ${turn.usage.inputTokens} in / ${turn.usage.outputTokens} out tokens`);
  say(`commands that really ran: ${commands.join(", ")}`);
  say(`files really read: ${reads.join(", ")} (the second read came from the cache)`);
  // Each request starts with the system prompt; later system messages are context hooks added.
  const notes = new Set(model.requests.flatMap((r) => r.messages.slice(1)).filter((m) => m.role === "system").map((m) => m.content));
  for (const note of notes) say(`context hooks added for the model: ${c.dim(brief(note, 90))}`);

  heading("metrics per point");
  say(c.dim(`${"point".padEnd(14)}${"runs".padStart(5)}${"ok".padStart(5)}${"rej".padStart(5)}${"fail".padStart(5)}${"total ms".padStart(10)}`));
  for (const [point, row] of table) {
    const ttfc = row.firstChunkMs > 0 ? c.dim(`  first chunk after ${(row.firstChunkMs / row.runs).toFixed(1)} ms on average`) : "";
    say(`${point.padEnd(14)}${String(row.runs).padStart(5)}${String(row.completed).padStart(5)}${String(row.rejected).padStart(5)}${String(row.failed).padStart(5)}${row.ms.toFixed(1).padStart(10)}${ttfc}`);
  }

  heading("decision trace");
  say(trace.format());
};

await main();
