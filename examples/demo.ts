/**
 * agent-onion demo: a realistic coding-agent session in the terminal, with a scripted model
 * (no network, no keys). It shows a tool policy blocking a destructive command, redaction of
 * a token and an email address, a rewritten tool input, a model call retried after an
 * overload, a cached result, a stop gate keeping the agent going once, guards stopping a
 * runaway loop, OpenTelemetry metrics, the decision trace, and a timeline for Perfetto.
 *
 * Run: npm run demo [-- <trace file>]   (default: agent-onion-demo.trace.json in the OS temp dir)
 * @expect ✗ rejected by toolPolicy: Tool "Bash" is blocked by policy: it matches deny rule "Bash(rm -rf*)"
 */
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Trace, chromeTraceRecorder, createAgent, createAgentStack, withMiddleware, type AgentStack, type TurnResult } from "agent-onion";
import { metrics } from "agent-onion/otel";
import { cachedReads, guardLimits, limits, policy, redact, retries } from "./demo/builtins.ts";
import { printGenAiMetrics, printHookOverhead } from "./demo/metrics-report.ts";
import { otelMeter } from "./demo/otel.ts";
import { brief, c, endLine, heading, say, write } from "./demo/print.ts";
import { printDecisions, printPoints, printReceived } from "./demo/report.ts";
import { followUp, scriptedModel, userEmail, userPrompt } from "./demo/script.ts";
import { lockfileInstalls, projectContext, testsBeforeDone, toolTranscript } from "./demo/sections.ts";
import { registryToken, workspace } from "./demo/workspace.ts";

/** The hook sections, in the order they are added; add yours here. */
export const sections: readonly ((stack: AgentStack) => AgentStack)[] = [
  projectContext,
  toolTranscript,
  redact,
  policy,
  limits,
  retries,
  lockfileInstalls,
  cachedReads,
  testsBeforeDone,
];

const tracePath = resolve(process.argv[2] ?? join(tmpdir(), "agent-onion-demo.trace.json"));

/** `a, b, b, b` as `a, b ×3`. */
const tally = (items: readonly string[]): string => {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1);
  return [...counts].map(([item, n]) => (n > 1 ? `${item} ×${n}` : item)).join(", ");
};

const summary = (turn: TurnResult): string =>
  `${turn.status}, ${turn.steps} steps, finish reason ${turn.finishReason}, ${turn.usage.inputTokens} in / ${turn.usage.outputTokens} out tokens`;

const main = async (): Promise<void> => {
  const trace = new Trace();
  const otel = otelMeter();
  const timeline = chromeTraceRecorder();
  const stack = withMiddleware(
    sections.reduce((s, section) => section(s), createAgentStack()),
    metrics({ meter: otel.meter, provider: "scripted" }),
    timeline,
  );
  const model = scriptedModel();
  const { tools, reads, commands } = workspace();
  let lastStep = -1;
  const agent = createAgent({
    model,
    stack,
    tools,
    trace,
    name: "coder",
    stream: true,
    system: "You are a careful coding agent.",
    onPart: (part, info) => {
      if (part.type === "text-delta") {
        if (info.step !== lastStep) write(`${c.dim(`${info.path.join("/")} ›`)} `);
        lastStep = info.step;
        write(c.bold(part.text));
      }
      if (part.type === "finish") endLine();
    },
  });

  heading("session");
  const session = await agent.session({ source: "startup", metadata: { user: "ada", roles: ["developer"] } });
  const turns: TurnResult[] = [];
  for (const prompt of [userPrompt, followUp]) {
    say(`${turns.length > 0 ? "\n" : ""}${c.dim("user ›")} ${prompt}\n`);
    lastStep = -1;
    const turn = await session.prompt(prompt);
    const stopped = turn.result?.stoppedBy;
    if (stopped !== undefined) say(`  ${c.red("⛔ run stopped by")} ${stopped.by}: ${stopped.reason}`);
    turns.push(turn);
  }
  await session.close("prompt_input_exit");
  await stack.flush();

  heading("result");
  turns.forEach((turn, i) => say(`turn ${i + 1}: ${summary(turn)}`));
  say(`guards per run: ${guardLimits.maxSteps} steps, ${guardLimits.maxTokens} tokens, ${guardLimits.maxExecutionTime} s`);
  say(`commands that really ran: ${tally(commands)}`);
  say(`files really read: ${reads.join(", ")} (the second read of package.json came from the cache)`);
  // Each request starts with the system prompt; later system messages are context hooks added.
  const notes = new Set(
    model.requests
      .flatMap((r) => r.messages.slice(1))
      .filter((m) => m.role === "system")
      .map((m) => m.content),
  );
  for (const note of notes) say(`context hooks added for the model: ${c.dim(brief(note, 90))}`);

  heading("what the model received (redacted)");
  printReceived(model.requests, [registryToken, userEmail]);

  heading("runs per point");
  printPoints(timeline.runs);

  heading("OpenTelemetry metrics (GenAI semantic conventions)");
  const collected = await otel.read();
  printGenAiMetrics(collected);

  heading("time per hook (agent_onion.hook.duration)");
  printHookOverhead(collected);

  heading("decisions that changed something");
  printDecisions(trace);

  heading("timeline");
  await timeline.write(tracePath);
  say(`wrote ${timeline.toJSON().traceEvents.length} trace events to ${tracePath}`);
  say(`open https://ui.perfetto.dev and load it (Open trace file) to see the session as a timeline`);
  await otel.shutdown();
};

await main();
