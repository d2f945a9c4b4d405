/**
 * The demo's pretend project: a few files and a shell that knows a handful of commands.
 * Nothing touches the real disk; `reads` and `commands` record what really executed.
 * `.npmrc` holds a (fake) registry token: redaction keeps it from the model.
 */
import { defineTool, type AgentTool } from "agent-onion";

/** A fake GitHub token in the project's `.npmrc`; the demo checks the model never saw it. */
export const registryToken = "ghp_R8x2Kq7Lm4Np9Tz3Vb6Wc1Yd5Hf0Gj2Ks8Qa";

const files: Record<string, string> = {
  "package.json": JSON.stringify({ name: "web-shop", scripts: { clean: "rimraf build", test: "vitest run" } }, null, 2),
  ".npmrc": `//npm.pkg.github.com/:_authToken=${registryToken}\n@web-shop:registry=https://npm.pkg.github.com\n`,
  "src/cart.ts": "export const total = (items: number[]) => items.reduce((a, b) => a + b, 0);\n",
};

/** What CI reports while it runs: a long status, so every poll makes the conversation bigger. */
const ciStatus = [
  "build #812  main  in progress",
  ...["lint", "typecheck", "unit (node 20)", "unit (node 22)"].map((job) => `  ✓ ${job.padEnd(16)} passed`),
  ...["e2e (chromium)", "e2e (firefox)", "e2e (webkit)", "deploy-preview"].map(
    (job) => `  * ${job.padEnd(16)} queued, waiting for a runner`,
  ),
].join("\n");

const shell: Record<string, string> = {
  ls: "build/  node_modules/  package.json  src/",
  "npm run clean": "> web-shop clean\n> rimraf build",
  "npm ci": "added 312 packages in 4s",
  "npm test": " ✓ test/cart.test.ts (42 tests)\n Tests  42 passed",
  "git push": "To github.com:web-shop/web-shop.git\n   4f2a9c1..8d03e77  main -> main",
  "gh run view": ciStatus,
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
