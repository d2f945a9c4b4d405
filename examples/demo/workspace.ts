/**
 * The demo's pretend project: a few files and a shell that knows a handful of commands.
 * Nothing touches the real disk; `reads` and `commands` record what really executed.
 */
import { defineTool, type AgentTool } from "../../src/index.ts";

const files: Record<string, string> = {
  "package.json": JSON.stringify({ name: "web-shop", scripts: { clean: "rimraf build", test: "vitest run" } }, null, 2),
  "src/cart.ts": "export const total = (items: number[]) => items.reduce((a, b) => a + b, 0);\n",
};

const shell: Record<string, string> = {
  ls: "build/  node_modules/  package.json  src/",
  "npm run clean": "> web-shop clean\n> rimraf build",
  "npm ci": "added 312 packages in 4s",
  "npm test": " ✓ test/cart.test.ts (42 tests)\n Tests  42 passed",
};

/** The project's tools, and what they actually did. */
export const workspace = () => {
  const reads: string[] = [];
  const commands: string[] = [];
  const read: AgentTool = defineTool<{ path?: unknown }>({
    name: "Read",
    description: "Read a file of the project",
    inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    execute: ({ path }) => {
      reads.push(String(path));
      const text = files[String(path)];
      if (text === undefined) throw new Error(`ENOENT: ${String(path)}`);
      return text;
    },
  });
  const bash: AgentTool = defineTool<{ command?: unknown }>({
    name: "Bash",
    description: "Run a shell command in the project",
    inputSchema: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
    execute: ({ command }) => {
      commands.push(String(command));
      return `$ ${String(command)}\n${shell[String(command)] ?? "(no output)"}`;
    },
  });
  return { tools: [read, bash], reads, commands };
};
