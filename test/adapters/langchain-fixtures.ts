/** Tools, models and agents for the LangChain adapter tests: the real `langchain` package and its own fake models. */
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import {
  AIMessage,
  HumanMessage,
  type createAgent,
  createMiddleware,
  fakeModel,
  tool,
  type AgentMiddleware,
  type BaseMessage,
} from "langchain";
import { z } from "zod";

/** A bash tool that records what it ran instead of running it. */
export const bashTool = () => {
  const ran: string[] = [];
  const bash = tool(
    async ({ command }) => {
      ran.push(command);
      return `ran: ${command}`;
    },
    { name: "bash", description: "Run a shell command", schema: z.object({ command: z.string() }) },
  );
  return { bash, ran };
};

/** A read tool that returns a fixed text with a secret in it. */
export const readTool = (text = "token=sk-live-0123456789") =>
  tool(async ({ path }) => `${path}: ${text}`, { name: "read", description: "Read a file", schema: z.object({ path: z.string() }) });

/** A tool that always throws this error. */
export const failingTool = (error: Error) =>
  tool(
    async () => {
      throw error;
    },
    { name: "flaky", description: "Fails", schema: z.object({ x: z.string() }) },
  );

/** An AI message with the usage and metadata a provider would report (LangChain's field types need a cast under exactOptionalPropertyTypes). */
export const answer = (
  content: string,
  fields: {
    usage?: { input_tokens: number; output_tokens: number; total_tokens: number };
    metadata?: Record<string, unknown>;
    id?: string;
    toolCalls?: { id: string; name: string; args: Record<string, unknown> }[];
  } = {},
): AIMessage =>
  new AIMessage({
    content,
    ...(fields.usage !== undefined ? { usage_metadata: fields.usage } : {}),
    ...(fields.metadata !== undefined ? { response_metadata: fields.metadata } : {}),
    ...(fields.id !== undefined ? { id: fields.id } : {}),
    ...(fields.toolCalls !== undefined ? { tool_calls: fields.toolCalls } : {}),
  } as ConstructorParameters<typeof AIMessage>[0]);

/** LangChain's fake model: first the given tool calls, then a final answer with usage. */
export const toolThenAnswer = (
  calls: readonly { readonly name: string; readonly args: Record<string, unknown>; readonly id?: string }[],
  text = "done",
  usage = { input_tokens: 20, output_tokens: 5, total_tokens: 25 },
) =>
  fakeModel()
    .respondWithTools(calls.map((c, i) => ({ ...c, id: c.id ?? `call-${i + 1}` })))
    .respond(answer(text, { usage }));

/** A pass-through `wrapModelCall`/`wrapToolCall` middleware: what LangChain does with any middleware there. */
export const passThrough = (): AgentMiddleware =>
  createMiddleware({
    name: "passThrough",
    wrapModelCall: (request, handler) => handler(request),
    wrapToolCall: (request, handler) => handler(request),
  });

/** Run an agent on one prompt and return its messages. */
export const ask = async (
  agent: ReturnType<typeof createAgent>,
  prompt: string,
  config?: Record<string, unknown>,
): Promise<BaseMessage[]> =>
  ((await agent.invoke({ messages: [new HumanMessage(prompt)] }, config as never)) as { messages: BaseMessage[] }).messages;

/** The messages as `type: text` lines, for readable assertions. */
export const transcript = (messages: readonly BaseMessage[]): string[] =>
  messages.map((m) => `${m.getType()}${(m as { status?: string }).status === "error" ? "(error)" : ""}: ${m.text}`);

/** A bash tool that appends each command it runs to `log`, so runs in any process can be counted. */
export const loggingBash = (log: string) =>
  tool(
    async ({ command }) => {
      appendFileSync(log, `${command}\n`);
      return `ran: ${command}`;
    },
    { name: "bash", description: "Run a shell command", schema: z.object({ command: z.string() }) },
  );

/** The lines a `loggingBash` wrote. */
export const logged = (log: string): string[] => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : []);
