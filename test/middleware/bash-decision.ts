/**
 * What `toolPolicy` decides for one Bash call made in a project directory: the policy alone on a
 * stack, the call's working directory the project's.
 */
import { createAgentStack } from "../../src/agent/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { toolPolicy } from "../../src/middleware/tool-policy.ts";

/**
 * "ran" when the policy lets `command` run in `projectDir` under `rules`, else "refused".
 *
 * @example
 * await bashDecision("ls", { allow: ["Bash(ls *)"] }, "/tmp/proj") // "ran"
 */
export const bashDecision = async (
  command: string,
  rules: { allow?: string[]; deny?: string[] },
  projectDir: string,
): Promise<"ran" | "refused"> => {
  const policy = toolPolicy({ ...rules, paths: { projectDir, cwd: projectDir }, onUnknownTool: () => {} });
  const outcome = await withMiddleware(createAgentStack(), policy).run(
    "toolCall",
    { id: "t", name: "Bash", input: { command } },
    () => ({ content: "ran" }),
    { metadata: { cwd: projectDir } },
  );
  return outcome._tag === "Completed" ? "ran" : "refused";
};
