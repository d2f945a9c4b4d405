import type { Hook, HookContext, Next } from "../../src/core/index.ts";
import { agentPoints, createAgentStack, defineTool, type AgentStack, type AgentTool } from "../../src/agent/index.ts";

export type PointName = keyof typeof agentPoints;
export const pointNames = Object.keys(agentPoints) as PointName[];

/** A stack with a recorder on every point: "point>" on the way in, "point<" on the way out (with the subject). */
export const recorded = (stack: AgentStack = createAgentStack(), points: readonly PointName[] = pointNames) => {
  const events: string[] = [];
  let s = stack;
  for (const point of points) {
    const hook: Hook<any, any, any> = {
      name: `rec-${point}`,
      priority: 0,
      before: (_input: unknown, ctx: HookContext) => void events.push(`${point}>${ctx.subject !== undefined ? ` ${ctx.subject}` : ""}`),
      around: async (_ctx: HookContext, next: Next<unknown, unknown>) => {
        const outcome = await next();
        events.push(`${point}< ${outcome._tag}`);
        return outcome;
      },
    };
    s = s.use(point, hook);
  }
  return { stack: s, events };
};

/** A shell tool that records the commands it ran. */
export const bashTool = (ran: string[] = []): AgentTool =>
  defineTool<{ command?: unknown }>({
    name: "Bash",
    description: "Run a shell command",
    inputSchema: { type: "object", properties: { command: { type: "string" } } },
    execute: ({ command }) => {
      ran.push(String(command));
      return `ran: ${String(command)}`;
    },
  });

/** The contents of the messages of a model request, as "role: content" lines. */
export const lines = (messages: readonly { role: string; content: string }[]) => messages.map((m) => `${m.role}: ${m.content}`);
