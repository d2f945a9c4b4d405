/**
 * The OpenTelemetry metrics as a table: what the built-in `metrics` middleware recorded, read
 * back from the SDK. GenAI metrics first (model calls, tokens, tools, the agent), then the
 * time spent in each hook.
 */
import type { DataPoint, Histogram, MetricData } from "@opentelemetry/sdk-metrics";
import { GenAiAttr, OnionAttr, OnionMetric, allAgentPoints } from "agent-onion";
import { c, say } from "./print.ts";

/** The attributes worth a column, in order (operation and provider names are the same on every row here). */
const shownAttributes = [
  GenAiAttr.requestModel,
  GenAiAttr.tokenType,
  GenAiAttr.toolName,
  GenAiAttr.agentName,
  OnionAttr.hookName,
  OnionAttr.hookPoint,
  OnionAttr.outcome,
  GenAiAttr.errorType,
];

const labelOf = (attributes: Record<string, unknown>): string =>
  shownAttributes
    .map((k) => attributes[k])
    .filter((v) => v !== undefined)
    .join(" · ");

const ms = (seconds: number): string => `${(seconds * 1000).toFixed(1)} ms`;

const row = (label: string, count: number, rest = ""): void => say(`  ${label.padEnd(40)}${String(count).padStart(4)}  ${rest}`.trimEnd());

/** One metric: a line with its name and unit, then one row per attribute set. */
const printMetric = (m: MetricData): void => {
  say(`${c.bold(m.descriptor.name)} ${c.dim(`(${m.descriptor.unit || "1"})`)}`);
  for (const p of m.dataPoints) {
    const label = labelOf(p.attributes);
    if (typeof p.value === "number") row(label, p.value);
    else {
      const { count, sum = 0, max = 0 } = (p as DataPoint<Histogram>).value;
      if (m.descriptor.unit === "s") row(label, count, `avg ${ms(sum / count).padStart(9)}   max ${ms(max).padStart(9)}`);
      else row(label, count, `sum ${String(sum).padStart(6)}   avg ${(sum / count).toFixed(0).padStart(5)}`);
    }
  }
};

/** Every metric but the hook durations, which get a table of their own. */
export const printGenAiMetrics = (metrics: readonly MetricData[]): void => {
  say(c.dim(`  ${"attributes".padEnd(40)}${"n".padStart(4)}`));
  for (const m of metrics) if (m.descriptor.name !== OnionMetric.hookDuration) printMetric(m);
};

interface HookRow {
  readonly hook: string;
  readonly point: string;
  readonly phases: Set<string>;
  count: number;
  sum: number;
}

const hookRows = (metrics: readonly MetricData[]): HookRow[] => {
  const rows = new Map<string, HookRow>();
  for (const p of metrics.find((m) => m.descriptor.name === OnionMetric.hookDuration)?.dataPoints ?? []) {
    const hook = String(p.attributes[OnionAttr.hookName]);
    const point = String(p.attributes[OnionAttr.hookPoint]);
    const r = rows.get(`${point} ${hook}`) ?? { hook, point, phases: new Set<string>(), count: 0, sum: 0 };
    const h = (p as DataPoint<Histogram>).value;
    r.phases.add(String(p.attributes[OnionAttr.hookPhase]));
    r.count += h.count;
    r.sum += h.sum ?? 0;
    rows.set(`${point} ${hook}`, r);
  }
  const order = (point: string): number => allAgentPoints.indexOf(point as never);
  return [...rows.values()].sort((a, b) => order(a.point) - order(b.point));
};

const printRows = (rows: readonly HookRow[]): void => {
  say(
    c.dim(
      `  ${"hook".padEnd(20)}${"point".padEnd(14)}${"phases".padEnd(14)}${"calls".padStart(5)}${"avg µs".padStart(9)}${"total ms".padStart(10)}`,
    ),
  );
  for (const r of rows)
    say(
      `  ${r.hook.padEnd(20)}${r.point.padEnd(14)}${[...r.phases].join("+").padEnd(14)}${String(r.count).padStart(5)}${((r.sum / r.count) * 1e6).toFixed(0).padStart(9)}${(r.sum * 1000).toFixed(2).padStart(10)}`,
    );
};

/** Time in each hook, summed over its phases: overhead for before and after hooks; an around hook's time includes what it wraps. */
export const printHookOverhead = (metrics: readonly MetricData[]): void => {
  const rows = hookRows(metrics);
  say("before and after hooks: their own time, the overhead they add");
  printRows(rows.filter((r) => !r.phases.has("around")));
  say("around hooks: their time includes the call they wrap (a model call, a tool, a whole step)");
  printRows(rows.filter((r) => r.phases.has("around")));
};
