/**
 * The parity scenarios: settings and hook scripts as people use them, each with what the real
 * Claude Code does with it (observed with the pinned version, checked again by the real-client
 * tests) and, where agent-onion does something else today, one line saying what differs.
 */
import { answer, decision, fixtureBin, on, script, settings, shell, specific } from "../../support/claude-code/hooks.ts";
import type { Observation, Scenario } from "../../support/claude-code/parity.ts";
import { bashTurn, ranCommand } from "../../support/claude-code/run-claude-code.ts";

/** A scenario, what Claude Code does with it, and what agent-onion does differently today. */
export interface ParityCase {
  readonly scenario: Scenario;
  readonly claude: Observation;
  /** Set while agent-onion disagrees: what differs, in one line. */
  readonly differs?: string;
}

const done = "Done.";
/** One Bash call, then the end of the turn. */
const oneCall = (command: string) => [bashTurn(command), done];
const bash = (...groups: Parameters<typeof settings>) => settings(...groups);
const pre = (...hooks: Parameters<typeof on>[2][]) => on("PreToolUse", "Bash", ...hooks);
const post = (...hooks: Parameters<typeof on>[2][]) => on("PostToolUse", "Bash", ...hooks);
const withRtk = { PATH: `${fixtureBin}:${process.env.PATH ?? "/usr/bin:/bin"}` };
const observed = (o: Partial<Observation> & Pick<Observation, "executed" | "modelCalls" | "toolErrors">): Observation => ({
  seen: {},
  files: {},
  ...o,
});

const hookifyRules = (rules: object[]) => ({ ".claude/hookify-rules.json": JSON.stringify(rules) });

/** How several hooks of one event combine. */
export const aggregation: Record<string, ParityCase> = {
  "a deny beats another hook's updatedInput: nothing runs, the model reads the reason": {
    scenario: {
      settings: bash(
        pre(
          answer({ out: decision("deny", "DENY-MARKER") }),
          answer({ out: decision("allow", undefined, { updatedInput: { command: ranCommand("rewritten") } }) }),
        ),
      ),
      turns: oneCall(ranCommand("original")),
      markers: ["DENY-MARKER"],
    },
    claude: observed({ executed: [], modelCalls: 2, toolErrors: [true], seen: { "DENY-MARKER": 1 } }),
  },
  "an ask beats an allow, and in -p mode the ask is a denial whose reason the model reads": {
    scenario: {
      settings: bash(pre(answer({ out: decision("allow") }), answer({ out: decision("ask", "ASK-MARKER") }))),
      turns: oneCall(ranCommand("1")),
      markers: ["ASK-MARKER"],
    },
    claude: observed({ executed: [], modelCalls: 2, toolErrors: [true], seen: { "ASK-MARKER": 1 } }),
  },
  "a deny beats an allow listed first": {
    scenario: {
      settings: bash(pre(answer({ out: decision("allow") }), answer({ out: decision("deny", "DENY-AFTER-ALLOW-MARKER") }))),
      turns: oneCall(ranCommand("1")),
      markers: ["DENY-AFTER-ALLOW-MARKER"],
    },
    claude: observed({ executed: [], modelCalls: 2, toolErrors: [true], seen: { "DENY-AFTER-ALLOW-MARKER": 1 } }),
  },
  "every hook runs when one denies: the audit logger after a deny still logs (audit_log.sh)": {
    scenario: {
      settings: bash(pre(script("block_rm.sh"), script("audit_log.sh"))),
      turns: oneCall("rm -rf ./victim; touch ran-rm"),
      files: { "victim/keep.txt": "keep" },
      exists: [".claude/audit.jsonl", "victim/keep.txt"],
      markers: ["Destructive command blocked by hook (block-rm)"],
    },
    claude: observed({
      executed: [],
      modelCalls: 2,
      toolErrors: [true],
      seen: { "Destructive command blocked by hook (block-rm)": 1 },
      files: { ".claude/audit.jsonl": true, "victim/keep.txt": true },
    }),
  },
  "one hook's rewrite is not seen by the others: bash_command_validator judges the command rtk rewrote from": {
    scenario: {
      settings: bash(pre(script("rtk_rewrite.sh"), script("bash_command_validator.py"))),
      env: withRtk,
      turns: oneCall("grep -c x /dev/null > /dev/null; touch ran-grep"),
      markers: ["Use 'rg' (ripgrep)"],
    },
    claude: observed({ executed: [], modelCalls: 2, toolErrors: [true], seen: { "Use 'rg' (ripgrep)": 1 } }),
  },
};

/** What a single answer means. */
export const answers: Record<string, ParityCase> = {
  "an answer's extra `metrics` field is ignored: security_reminder.py denies the first risky call, then lets the retry run": {
    scenario: {
      settings: bash(pre(script("security_reminder.py"))),
      turns: [bashTurn("echo 'eval(x)' > /dev/null; touch ran-first"), bashTurn("echo 'eval(y)' > /dev/null; touch ran-second"), done],
      markers: ["Security reminder (eval_injection)"],
    },
    claude: observed({ executed: ["second"], modelCalls: 3, toolErrors: [true, false], seen: { "Security reminder (eval_injection)": 1 } }),
  },
  "the handler fields asyncRewake, rewakeMessage, rewakeSummary and statusMessage load (security-guidance's hooks.json)": {
    scenario: {
      settings: bash(
        pre(script("block_rm.sh", [], { statusMessage: "Checking the command" })),
        on(
          "Stop",
          undefined,
          script("stop_notifier.mjs", [], {
            asyncRewake: true,
            rewakeMessage: "Security review findings",
            rewakeSummary: "security review",
          }),
        ),
      ),
      turns: oneCall("rm -rf ./victim; touch ran-rm"),
      files: { "victim/keep.txt": "keep" },
      exists: ["victim/keep.txt"],
    },
    claude: observed({ executed: [], modelCalls: 2, toolErrors: [true], files: { "victim/keep.txt": true } }),
  },
  '`decision: "approve"` is an allow: approve_safe_commands.py lets a call run that no permission rule allows': {
    scenario: { settings: bash(pre(script("approve_safe_commands.py"))), allowedTools: [], turns: oneCall(ranCommand("approved")) },
    claude: observed({ executed: ["approved"], modelCalls: 2, toolErrors: [false] }),
  },
  '`decision: "block"` on PreToolUse is a deny with its reason (approve_safe_commands.py on rm)': {
    scenario: {
      settings: bash(pre(script("approve_safe_commands.py"))),
      turns: oneCall("rm -f ./nothing; touch ran-rm"),
      markers: ["rm is not allowed here"],
    },
    claude: observed({ executed: [], modelCalls: 2, toolErrors: [true], seen: { "rm is not allowed here": 1 } }),
  },
  '`decision: "allow"` is no decision: legacy_allow.sh changes nothing, the call runs on its permission rule': {
    scenario: { settings: bash(pre(script("legacy_allow.sh"))), turns: oneCall(ranCommand("1")) },
    claude: observed({ executed: ["1"], modelCalls: 2, toolErrors: [false] }),
  },
  "plain text on PreToolUse at exit 0 is ignored: the call runs and the model never sees the text": {
    scenario: {
      settings: bash(pre(answer({ out: "PLAIN-PRE-MARKER: checked\n" }))),
      turns: oneCall(ranCommand("1")),
      markers: ["PLAIN-PRE-MARKER"],
    },
    claude: observed({ executed: ["1"], modelCalls: 2, toolErrors: [false], seen: { "PLAIN-PRE-MARKER": null } }),
  },
  "text before a JSON deny makes all of stdout plain text: the deny is not read and the call runs": {
    scenario: {
      settings: bash(pre(answer({ out: `checking...\n${JSON.stringify(decision("deny", "TEXT-BEFORE-JSON-MARKER"))}\n` }))),
      turns: oneCall(ranCommand("1")),
      markers: ["TEXT-BEFORE-JSON-MARKER"],
    },
    claude: observed({ executed: ["1"], modelCalls: 2, toolErrors: [false], seen: { "TEXT-BEFORE-JSON-MARKER": null } }),
  },
  "an ANSI code before a JSON deny makes it plain text: the call runs": {
    scenario: {
      settings: bash(pre(answer({ out: `\u001b[0m${JSON.stringify(decision("deny", "ANSI-MARKER"))}` }))),
      turns: oneCall(ranCommand("1")),
      markers: ["ANSI-MARKER"],
    },
    claude: observed({ executed: ["1"], modelCalls: 2, toolErrors: [false], seen: { "ANSI-MARKER": null } }),
  },
  "`OK\\r` before a JSON deny makes it plain text: the call runs": {
    scenario: {
      settings: bash(pre(answer({ out: `OK\r${JSON.stringify(decision("deny", "CR-MARKER"))}` }))),
      turns: oneCall(ranCommand("1")),
      markers: ["CR-MARKER"],
    },
    claude: observed({ executed: ["1"], modelCalls: 2, toolErrors: [false], seen: { "CR-MARKER": null } }),
  },
  "a permissionDecision Claude Code does not know fails open: the call runs": {
    scenario: {
      settings: bash(pre(answer({ out: decision("maybe", "MAYBE-MARKER") }))),
      turns: oneCall(ranCommand("1")),
      markers: ["MAYBE-MARKER"],
    },
    claude: observed({ executed: ["1"], modelCalls: 2, toolErrors: [false], seen: { "MAYBE-MARKER": null } }),
  },
  "JSON that does not parse fails open: the call runs": {
    scenario: { settings: bash(pre(answer({ out: '{"hookSpecificOutput": {' }))), turns: oneCall(ranCommand("1")) },
    claude: observed({ executed: ["1"], modelCalls: 2, toolErrors: [false] }),
  },
  "exit 1 fails open: the call runs and the model is not told": {
    scenario: { settings: bash(pre(answer({ err: "EXIT1-MARKER", exit: 1 }))), turns: oneCall(ranCommand("1")), markers: ["EXIT1-MARKER"] },
    claude: observed({ executed: ["1"], modelCalls: 2, toolErrors: [false], seen: { "EXIT1-MARKER": null } }),
  },
  "a missing hook script fails open: the call runs": {
    scenario: { settings: bash(pre(shell("/nonexistent/rig-hook.sh"))), turns: oneCall(ranCommand("1")) },
    claude: observed({ executed: ["1"], modelCalls: 2, toolErrors: [false] }),
  },
  "a hook that times out fails open: the call runs": {
    scenario: {
      settings: bash(pre(answer({ sleep: 5, out: decision("deny", "LATE-MARKER") }, { timeout: 1 }))),
      turns: oneCall(ranCommand("1")),
      markers: ["LATE-MARKER"],
    },
    claude: observed({ executed: ["1"], modelCalls: 2, toolErrors: [false], seen: { "LATE-MARKER": null } }),
  },
  "exit 1 with a valid JSON deny blocks, with the JSON's reason": {
    scenario: {
      settings: bash(pre(answer({ out: decision("deny", "EXIT1-DENY-MARKER"), exit: 1 }))),
      turns: oneCall(ranCommand("1")),
      markers: ["EXIT1-DENY-MARKER"],
    },
    claude: observed({ executed: [], modelCalls: 2, toolErrors: [true], seen: { "EXIT1-DENY-MARKER": 1 } }),
  },
  "exit 2 blocks even beside a JSON allow, with stderr as the reason": {
    scenario: {
      settings: bash(pre(answer({ out: decision("allow"), err: "EXIT2-MARKER", exit: 2 }))),
      turns: oneCall(ranCommand("1")),
      markers: ["EXIT2-MARKER"],
    },
    claude: observed({ executed: [], modelCalls: 2, toolErrors: [true], seen: { "EXIT2-MARKER": 1 } }),
  },
  "`continue: false` on PreToolUse lets the call run, then ends the turn; stopReason never reaches the model": {
    scenario: {
      settings: bash(pre(answer({ out: { continue: false, stopReason: "STOP-REASON-MARKER" } }))),
      turns: [bashTurn(ranCommand("1")), bashTurn(ranCommand("2")), done],
      markers: ["STOP-REASON-MARKER"],
    },
    claude: observed({ executed: ["1"], modelCalls: 1, toolErrors: [], seen: { "STOP-REASON-MARKER": null } }),
  },
  "hookify's deny on PreToolUse (no reason, the message in systemMessage) blocks the call": {
    scenario: {
      settings: bash(pre(script("hookify_rules.py"))),
      files: hookifyRules([
        {
          name: "no-rm",
          event: "PreToolUse",
          tool: "Bash",
          field: "command",
          pattern: "\\brm\\b",
          action: "block",
          message: "HOOKIFY-BLOCK-MARKER",
        },
      ]),
      turns: oneCall("rm -f ./nothing; touch ran-rm"),
      markers: ["HOOKIFY-BLOCK-MARKER"],
    },
    claude: observed({ executed: [], modelCalls: 2, toolErrors: [true], seen: { "HOOKIFY-BLOCK-MARKER": null } }),
  },
  "hookify's permissionDecision on PostToolUse is ignored: the output reaches the model": {
    scenario: {
      settings: bash(post(script("hookify_rules.py"))),
      files: hookifyRules([
        {
          name: "no-echo",
          event: "PostToolUse",
          tool: "Bash",
          field: "command",
          pattern: "echo",
          action: "block",
          message: "HOOKIFY-POST-MARKER",
        },
      ]),
      turns: oneCall("echo OUTPUT-MARKER; touch ran-1"),
      markers: ["OUTPUT-MARKER", "HOOKIFY-POST-MARKER"],
    },
    claude: observed({ executed: ["1"], modelCalls: 2, toolErrors: [false], seen: { "OUTPUT-MARKER": 1, "HOOKIFY-POST-MARKER": null } }),
  },
  "hookify's warn rule (systemMessage only) changes nothing the model sees": {
    scenario: {
      settings: bash(pre(script("hookify_rules.py"))),
      files: hookifyRules([
        {
          name: "careful",
          event: "PreToolUse",
          tool: "Bash",
          field: "command",
          pattern: "touch",
          action: "warn",
          message: "HOOKIFY-WARN-MARKER",
        },
      ]),
      turns: oneCall(ranCommand("1")),
      markers: ["HOOKIFY-WARN-MARKER"],
    },
    claude: observed({ executed: ["1"], modelCalls: 2, toolErrors: [false], seen: { "HOOKIFY-WARN-MARKER": null } }),
  },
  "ask_before_push.sh's ask is a denial in -p mode, its reason read by the model": {
    scenario: {
      settings: bash(pre(script("ask_before_push.sh"))),
      turns: oneCall("echo push-marker; touch ran-push"),
      markers: ["ASK-PUSH-MARKER"],
    },
    claude: observed({ executed: [], modelCalls: 2, toolErrors: [true], seen: { "ASK-PUSH-MARKER": 1 } }),
  },
};

/** PostToolUse answers. */
export const postToolUse: Record<string, ParityCase> = {
  '`decision: "block"` on PostToolUse: the model reads the original output and the reason': {
    scenario: {
      settings: bash(post(answer({ out: { decision: "block", reason: "POST-BLOCK-MARKER" } }))),
      turns: oneCall("echo OUTPUT-MARKER; touch ran-1"),
      markers: ["OUTPUT-MARKER", "POST-BLOCK-MARKER"],
    },
    claude: observed({ executed: ["1"], modelCalls: 2, toolErrors: [false], seen: { "OUTPUT-MARKER": 1, "POST-BLOCK-MARKER": 1 } }),
  },
  "exit 2 on PostToolUse: the model reads the original output and stderr": {
    scenario: {
      settings: bash(post(answer({ err: "POST-EXIT2-MARKER", exit: 2 }))),
      turns: oneCall("echo OUTPUT-MARKER; touch ran-1"),
      markers: ["OUTPUT-MARKER", "POST-EXIT2-MARKER"],
    },
    claude: observed({ executed: ["1"], modelCalls: 2, toolErrors: [false], seen: { "OUTPUT-MARKER": 1, "POST-EXIT2-MARKER": 1 } }),
  },
  "redact_secrets.py's updatedToolOutput object replaces Bash's output: the secret never reaches the model": {
    scenario: {
      settings: bash(post(script("redact_secrets.py"))),
      turns: oneCall("echo token sk-live-SECRET123456; touch ran-1"),
      markers: ["sk-live-SECRET123456", "[REDACTED]"],
    },
    claude: observed({ executed: ["1"], modelCalls: 2, toolErrors: [false], seen: { "sk-live-SECRET123456": null, "[REDACTED]": 1 } }),
  },
  "updatedToolOutput as a string is rejected for Bash (redact_secrets.py --string): the original output, secret included, reaches the model":
    {
      scenario: {
        settings: bash(post(script("redact_secrets.py", ["--string"]))),
        turns: oneCall("echo token sk-live-SECRET123456; touch ran-1"),
        markers: ["sk-live-SECRET123456", "[REDACTED]"],
      },
      claude: observed({ executed: ["1"], modelCalls: 2, toolErrors: [false], seen: { "sk-live-SECRET123456": 1, "[REDACTED]": null } }),
      differs: "on purpose: agent-onion honours the string, so the model reads the redacted text and the secret stays out",
    },
  "additionalContext on PostToolUse reaches the model beside the result": {
    scenario: {
      settings: bash(post(answer({ out: specific("PostToolUse", { additionalContext: "POST-CONTEXT-MARKER" }) }))),
      turns: oneCall(ranCommand("1")),
      markers: ["POST-CONTEXT-MARKER"],
    },
    claude: observed({ executed: ["1"], modelCalls: 2, toolErrors: [false], seen: { "POST-CONTEXT-MARKER": 1 } }),
  },
  "`continue: false` on PostToolUse (budget_stop.sh) ends the turn after the call": {
    scenario: {
      settings: bash(post(script("budget_stop.sh"))),
      turns: [bashTurn(ranCommand("1")), bashTurn(ranCommand("2")), done],
      markers: ["BUDGET-MARKER"],
    },
    claude: observed({ executed: ["1"], modelCalls: 1, toolErrors: [], seen: { "BUDGET-MARKER": null } }),
  },
  "trailing_whitespace_formatter.sh formats the file Write wrote": {
    scenario: {
      settings: settings(on("PostToolUse", "Write|Edit", script("trailing_whitespace_formatter.sh"))),
      allowedTools: ["Bash", "Write"],
      turns: [{ toolUses: [{ name: "Write", input: { file_path: "notes.txt", content: "line one   \nline two\t\n" } }] }, done],
      contents: ["notes.txt"],
    },
    claude: observed({ executed: [], modelCalls: 2, toolErrors: [false], files: { "notes.txt": "line one\nline two\n" } }),
  },
};

/** Context, prompts, sessions, failures and stops. */
export const lifecycle: Record<string, ParityCase> = {
  "plain stdout of a UserPromptSubmit hook is context for the model (git_context_prompt.sh)": {
    scenario: {
      settings: settings(on("UserPromptSubmit", undefined, script("git_context_prompt.sh"))),
      files: { BRANCH_NOTES: "Branch notes: NOTES-MARKER\n" },
      turns: [done],
      markers: ["PROMPT-CONTEXT-MARKER", "NOTES-MARKER"],
    },
    claude: observed({ executed: [], modelCalls: 1, toolErrors: [], seen: { "PROMPT-CONTEXT-MARKER": 0, "NOTES-MARKER": 0 } }),
  },
  "SessionStart additionalContext is in the first request (agents_md_session.py)": {
    scenario: {
      settings: settings(on("SessionStart", undefined, script("agents_md_session.py"))),
      files: { "AGENTS.md": "Always run the linter. AGENTS-MARKER\n" },
      turns: [done],
      markers: ["AGENTS-MARKER"],
    },
    claude: observed({ executed: [], modelCalls: 1, toolErrors: [], seen: { "AGENTS-MARKER": 0 } }),
  },
  "a UserPromptSubmit block erases the prompt: the model is never called": {
    scenario: {
      settings: settings(on("UserPromptSubmit", undefined, answer({ out: { decision: "block", reason: "PROMPT-BLOCK-MARKER" } }))),
      turns: [done],
      markers: ["PROMPT-BLOCK-MARKER"],
    },
    claude: observed({ executed: [], modelCalls: 0, toolErrors: [], seen: { "PROMPT-BLOCK-MARKER": null } }),
  },
  "a SessionStart hook that exits 2 does not stop the session": {
    scenario: {
      settings: settings(on("SessionStart", undefined, answer({ err: "SESSION-EXIT2-MARKER", exit: 2 }))),
      turns: [done],
      markers: ["SESSION-EXIT2-MARKER"],
    },
    claude: observed({ executed: [], modelCalls: 1, toolErrors: [], seen: { "SESSION-EXIT2-MARKER": null } }),
  },
  "a SessionStart hook that exits 1 does not stop the session": {
    scenario: {
      settings: settings(on("SessionStart", undefined, answer({ err: "SESSION-EXIT1-MARKER", exit: 1 }))),
      turns: [done],
      markers: ["SESSION-EXIT1-MARKER"],
    },
    claude: observed({ executed: [], modelCalls: 1, toolErrors: [], seen: { "SESSION-EXIT1-MARKER": null } }),
  },
  "failure_advisor.py's PostToolUseFailure context reaches the model with the error": {
    scenario: {
      settings: settings(on("PostToolUseFailure", "Bash", script("failure_advisor.py"))),
      turns: oneCall("echo failing; exit 3"),
      markers: ["FAILURE-ADVICE-MARKER", "Exit code 3"],
    },
    claude: observed({ executed: [], modelCalls: 2, toolErrors: [true], seen: { "FAILURE-ADVICE-MARKER": 1, "Exit code 3": 1 } }),
  },
  "PostToolBatch additionalContext reaches the model before its next call": {
    scenario: {
      settings: settings(on("PostToolBatch", undefined, answer({ out: specific("PostToolBatch", { additionalContext: "BATCH-MARKER" }) }))),
      turns: oneCall(ranCommand("1")),
      markers: ["BATCH-MARKER"],
    },
    claude: observed({ executed: ["1"], modelCalls: 2, toolErrors: [false], seen: { "BATCH-MARKER": 1 } }),
  },
  "Stop additionalContext keeps the turn going once, as a reminder the model reads": {
    scenario: {
      settings: settings(
        on(
          "Stop",
          undefined,
          answer({ once: "$CLAUDE_PROJECT_DIR/.stop-once", out: specific("Stop", { additionalContext: "STOP-CONTEXT-MARKER" }) }),
        ),
      ),
      turns: ["First.", "Second."],
      markers: ["STOP-CONTEXT-MARKER"],
    },
    claude: observed({ executed: [], modelCalls: 2, toolErrors: [], seen: { "STOP-CONTEXT-MARKER": 1 } }),
  },
  "a Stop hook that always blocks runs 9 times; the model is called 9 times, then the turn ends": {
    scenario: {
      settings: settings(on("Stop", undefined, answer({ out: { decision: "block", reason: "STOP-LOOP-MARKER" } }))),
      turns: [],
      whenDone: done,
      markers: ["STOP-LOOP-MARKER"],
    },
    claude: observed({ executed: [], modelCalls: 9, toolErrors: [], seen: { "STOP-LOOP-MARKER": 1 } }),
  },
  "require_tests_stop.sh blocks the first stop and lets the second through (stop_hook_active)": {
    scenario: {
      settings: settings(on("Stop", undefined, script("require_tests_stop.sh"))),
      turns: ["First.", "Second."],
      markers: ["REQUIRE-TESTS-MARKER"],
    },
    claude: observed({ executed: [], modelCalls: 2, toolErrors: [], seen: { "REQUIRE-TESTS-MARKER": 1 } }),
  },
  "ralph_stop.sh loops on its prompt until the transcript's last message keeps the promise": {
    scenario: {
      settings: settings(on("Stop", undefined, script("ralph_stop.sh"))),
      files: {
        ".claude/ralph-loop.local.md":
          '---\niteration: 1\nmax_iterations: 5\ncompletion_promise: "DONE"\n---\nRALPH-PROMPT-MARKER: keep improving the code\n',
      },
      turns: ["Working on it.", "Still working.", "All finished. <promise>DONE</promise>"],
      markers: ["RALPH-PROMPT-MARKER"],
      exists: [".claude/ralph-loop.local.md"],
    },
    claude: observed({
      executed: [],
      modelCalls: 3,
      toolErrors: [],
      seen: { "RALPH-PROMPT-MARKER": 1 },
      files: { ".claude/ralph-loop.local.md": false },
    }),
  },
  "hookify's Stop rule on the transcript blocks until the transcript shows the tests ran": {
    scenario: {
      settings: settings(on("Stop", undefined, script("hookify_rules.py"))),
      files: hookifyRules([
        {
          name: "require-tests",
          event: "Stop",
          field: "transcript",
          pattern: "^(?![\\s\\S]*ran-tests)",
          action: "block",
          message: "HOOKIFY-STOP-MARKER",
        },
      ]),
      turns: ["Finished.", bashTurn(ranCommand("tests")), "Finished after the tests."],
      markers: ["HOOKIFY-STOP-MARKER"],
    },
    claude: observed({ executed: ["tests"], modelCalls: 3, toolErrors: [false], seen: { "HOOKIFY-STOP-MARKER": 1 } }),
  },
  "stop_notifier.mjs records the last assistant message and never blocks": {
    scenario: {
      settings: settings(on("Stop", undefined, script("stop_notifier.mjs"))),
      turns: ["Finished the task."],
      contents: [".claude/notifications.log"],
    },
    claude: observed({ executed: [], modelCalls: 1, toolErrors: [], files: { ".claude/notifications.log": "Stop: Finished the task.\n" } }),
  },
  "env_file_setup.sh's exports through CLAUDE_ENV_FILE reach later Bash commands": {
    scenario: {
      settings: settings(on("SessionStart", undefined, script("env_file_setup.sh"))),
      turns: oneCall('[ "$RIG_STAGE" = from-session-start ] && touch ran-envfile || touch ran-noenv'),
    },
    claude: observed({ executed: ["envfile"], modelCalls: 2, toolErrors: [false] }),
  },
};

/** Scripts that guard one tool call on their own. */
export const guards: Record<string, ParityCase> = {
  "bash_command_validator.py blocks `grep` with its advice (exit 2)": {
    scenario: {
      settings: bash(pre(script("bash_command_validator.py"))),
      turns: oneCall("grep -c x /dev/null; touch ran-grep"),
      markers: ["Use 'rg' (ripgrep)"],
    },
    claude: observed({ executed: [], modelCalls: 2, toolErrors: [true], seen: { "Use 'rg' (ripgrep)": 1 } }),
  },
  "rtk_rewrite.sh's rewrite is what runs": {
    scenario: { settings: bash(pre(script("rtk_rewrite.sh"))), env: withRtk, turns: oneCall("ls > /dev/null; touch ran-ls") },
    claude: observed({ executed: ["ls", "rtk"], modelCalls: 2, toolErrors: [false] }),
  },
  "block_rm.sh denies rm -rf with its reason; nothing is deleted": {
    scenario: {
      settings: bash(pre(script("block_rm.sh"))),
      files: { "victim/keep.txt": "keep" },
      turns: oneCall("rm -rf ./victim; touch ran-rm"),
      markers: ["Destructive command blocked by hook (block-rm)"],
      exists: ["victim/keep.txt"],
    },
    claude: observed({
      executed: [],
      modelCalls: 2,
      toolErrors: [true],
      seen: { "Destructive command blocked by hook (block-rm)": 1 },
      files: { "victim/keep.txt": true },
    }),
  },
  "protect_files.mjs blocks a command on .env (exit 2, stderr to the model)": {
    scenario: {
      settings: bash(pre(script("protect_files.mjs"))),
      files: { ".env": "TOKEN=x\n" },
      turns: oneCall("cat .env; touch ran-env"),
      markers: ["PROTECT-FILES-MARKER"],
    },
    claude: observed({ executed: [], modelCalls: 2, toolErrors: [true], seen: { "PROTECT-FILES-MARKER": 1 } }),
  },
};

/** A Write no rule allows: PermissionRequest, and what a grant's permission updates do to the next one. */
const grantOnce = (updatedPermissions?: readonly object[]) =>
  settings(
    on(
      "PermissionRequest",
      "Write",
      answer({
        once: "$CLAUDE_PROJECT_DIR/.granted",
        out: specific("PermissionRequest", {
          decision: { behavior: "allow", ...(updatedPermissions !== undefined ? { updatedPermissions } : {}) },
        }),
      }),
    ),
  );
const writeTurn = (file: string) => ({ toolUses: [{ name: "Write", input: { file_path: file, content: "x\n" } }] });
const twoWrites = [writeTurn("first.txt"), writeTurn("second.txt"), done];

/** PermissionRequest decisions and the permission updates they carry. */
export const permissions: Record<string, ParityCase> = {
  "a PermissionRequest grant lets one call run; the next asks again and, with nobody to answer, is denied": {
    scenario: { settings: grantOnce(), turns: twoWrites, exists: ["first.txt", "second.txt"] },
    claude: observed({ executed: [], modelCalls: 3, toolErrors: [false, true], files: { "first.txt": true, "second.txt": false } }),
  },
  "updatedPermissions addRules for the session: the next Write runs without a new request": {
    scenario: {
      settings: grantOnce([{ type: "addRules", rules: [{ toolName: "Write" }], behavior: "allow", destination: "session" }]),
      turns: twoWrites,
      exists: ["first.txt", "second.txt"],
    },
    claude: observed({ executed: [], modelCalls: 3, toolErrors: [false, false], files: { "first.txt": true, "second.txt": true } }),
  },
  "updatedPermissions setMode acceptEdits for the session (Write's suggestion): the next Write runs": {
    scenario: {
      settings: grantOnce([{ type: "setMode", mode: "acceptEdits", destination: "session" }]),
      turns: twoWrites,
      exists: ["first.txt", "second.txt"],
    },
    claude: observed({ executed: [], modelCalls: 3, toolErrors: [false, false], files: { "first.txt": true, "second.txt": true } }),
  },
  "a PermissionRequest deny refuses the call, and its message reaches the model": {
    scenario: {
      settings: settings(
        on(
          "PermissionRequest",
          "Write",
          answer({ out: specific("PermissionRequest", { decision: { behavior: "deny", message: "PERMISSION-DENY-MARKER" } }) }),
        ),
      ),
      turns: [writeTurn("first.txt"), done],
      exists: ["first.txt"],
      markers: ["PERMISSION-DENY-MARKER"],
    },
    claude: observed({
      executed: [],
      modelCalls: 2,
      toolErrors: [true],
      seen: { "PERMISSION-DENY-MARKER": 1 },
      files: { "first.txt": false },
    }),
  },
};
