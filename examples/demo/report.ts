/**
 * The demo's report after the session: what the model received, runs per point, and the
 * decisions that changed something (every decision is in the trace file).
 */
import type { Message, ModelRequest, TimelineRun, Trace, TraceEntry } from "agent-onion";
import { brief, c, say } from "./print.ts";

/** What the model was sent: the user's prompt and the `.npmrc` it read, and whether any secret got through. */
export const printReceived = (requests: readonly ModelRequest[], secrets: readonly string[]): void => {
  const messages: readonly Message[] = requests.at(-1)?.messages ?? [];
  const prompt = messages.find((m) => m.role === "user");
  const npmrcCall = messages.flatMap((m) => m.toolCalls ?? []).find((call) => call.input.path === ".npmrc");
  const npmrc = messages.find((m) => m.role === "tool" && m.toolCallId === npmrcCall?.id);
  if (prompt !== undefined) say(`user prompt   ${c.dim(brief(prompt.content, 130))}`);
  if (npmrc !== undefined) say(`Read .npmrc   ${c.dim(brief(npmrc.content, 130))}`);
  const sent = JSON.stringify(requests);
  const leaked = secrets.filter((s) => sent.includes(s));
  say(
    leaked.length === 0
      ? `${c.green("✓")} none of the ${requests.length} requests contained the token or the email address`
      : `${c.red("✗ leaked to the model:")} ${leaked.join(", ")}`,
  );
};

/** Runs per point and how they ended, from the timeline's runs. */
export const printPoints = (runs: readonly TimelineRun[]): void => {
  const rows = new Map<string, { runs: number; ok: number; rej: number; fail: number; ms: number }>();
  for (const run of runs) {
    const row = rows.get(run.point) ?? { runs: 0, ok: 0, rej: 0, fail: 0, ms: 0 };
    row.runs++;
    row.ms += run.durationMs;
    if (run.outcome === "Completed") row.ok++;
    else if (run.outcome === "Rejected") row.rej++;
    else row.fail++;
    rows.set(run.point, row);
  }
  say(
    c.dim(
      `${"point".padEnd(14)}${"runs".padStart(5)}${"ok".padStart(5)}${"rej".padStart(5)}${"fail".padStart(5)}${"total ms".padStart(10)}`,
    ),
  );
  for (const [point, r] of rows)
    say(
      `${point.padEnd(14)}${String(r.runs).padStart(5)}${String(r.ok).padStart(5)}${String(r.rej).padStart(5)}${String(r.fail).padStart(5)}${r.ms.toFixed(1).padStart(10)}`,
    );
};

/**
 * Decisions that let the input through (`Continue`) or ended an `around` (`Outcome`). The trace
 * records what an around returned, not what it did, so a guard's stop or a retry is an `Outcome` too.
 */
const passedThrough = (e: TraceEntry): boolean => e.action === "Continue" || e.action === "Outcome";

/** The decisions that changed the input or the answer; the rest are counted. */
export const printDecisions = (trace: Trace): void => {
  const shown = trace.entries.filter((e) => !passedThrough(e));
  for (const e of shown)
    say(
      `${e.point.padEnd(13)} ${e.hook.padEnd(18)} ${e.phase.padEnd(7)} ${e.action.padEnd(10)}${e.ms.toFixed(3).padStart(7)} ms${e.reason ? `  ${c.dim(brief(e.reason, 90))}` : ""}`,
    );
  say(c.dim(`(${trace.entries.length - shown.length} more: Continue, or an around hook's Outcome, such as the token guard's stop and`));
  say(c.dim(` the retry above; the trace file has all ${trace.entries.length})`));
};
