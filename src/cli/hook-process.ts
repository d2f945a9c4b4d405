/**
 * The resident side of `agent-onion serve`: a child process that loads the module once and answers
 * events sent over IPC with the code path `claude-hook` uses (hook-answer.ts). A child per
 * version of the module gives each reload a fresh module graph (the module's own imports too,
 * CommonJS or ES modules alike), which one process cannot get back once it has imported them.
 */
import { describe } from "../core/errors.ts";
import { answerHookEvent, bridgeApproval, type HookAnswer } from "./hook-answer.ts";
import { loadStack } from "./load-stack.ts";

/** How long the stack's background work may go on once serve is gone. */
const orphanGraceMs = 10_000;

/** What the serving process sends: an event to answer, or the order to finish. */
export type ToHookProcess = { readonly id: number; readonly text: string } | { readonly shutdown: true };

/** What the hook process sends back: once whether the module loaded, then one answer per event. */
export type FromHookProcess = { readonly ready: true; readonly error?: string } | { readonly id: number; readonly answer: HookAnswer };

export interface HookProcessOptions {
  readonly file: string;
  readonly cwd: string;
  readonly exportName: string;
  readonly failOpen: boolean;
}

/**
 * Run as the hook process (`agent-onion _hook-process`): returns when told to shut down, after
 * the stack's background work is done.
 *
 * @example
 * await hookProcess({ file: "hooks/guard.ts", cwd: process.cwd(), exportName: "default", failOpen: false })
 */
export const hookProcess = async (options: HookProcessOptions): Promise<number> => {
  const send = process.send?.bind(process);
  if (send === undefined) throw new Error("_hook-process is started by agent-onion serve, over IPC");
  // Serve decides when this process ends (shutdown, disconnect, or SIGKILL): a Ctrl-C that reaches
  // the terminal's whole process group, or a supervisor's SIGTERM to the whole control group, must
  // not cut off the answers serve is still waiting for while it drains.
  process.on("SIGINT", () => {});
  process.on("SIGTERM", () => {});
  // Serve gone while the module loads (killed with SIGKILL): nothing will be asked, and a load that
  // hangs would otherwise keep this process alive for good.
  let ready = false;
  process.once("disconnect", () => {
    if (!ready) process.exit(0);
  });
  // Gone already, while this process was still starting.
  if (!process.connected) process.exit(0);
  const loading = loadStack(options.file, options.cwd, options.exportName, { approval: bridgeApproval });
  const loaded = await loading.then(
    () => undefined,
    (error: unknown) => describe(error),
  );
  ready = true;
  if (!process.connected) return 0;
  send({ ready: true, ...(loaded !== undefined ? { error: loaded } : {}) } satisfies FromHookProcess);
  return new Promise<number>((resolve) => {
    let finishing = false;
    const finish = async (): Promise<void> => {
      if (finishing) return;
      finishing = true;
      process.off("message", onMessage);
      await loading.then(
        (stack) => stack.flush(),
        () => undefined,
      );
      if (process.connected) process.disconnect();
      resolve(0);
    };
    const onMessage = (message: ToHookProcess): void => {
      if ("shutdown" in message) {
        void finish();
        return;
      }
      void answerHookEvent(message.text, () => loading, { failOpen: options.failOpen, who: "agent-onion serve", flush: false }).then(
        (answer) => send({ id: message.id, answer } satisfies FromHookProcess),
        (error: unknown) =>
          send({
            id: message.id,
            answer: { exitCode: options.failOpen ? 1 : 2, stderr: `agent-onion serve: ${describe(error)}` },
          } satisfies FromHookProcess),
      );
    };
    process.on("message", onMessage);
    // The server went away without saying so: nothing more will come. Its background work gets a
    // while to end, no more: nobody is left to stop this process (it does not heed SIGTERM).
    process.once("disconnect", () => {
      setTimeout(() => process.exit(0), orphanGraceMs).unref();
      void finish();
    });
  });
};
