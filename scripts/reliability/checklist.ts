/**
 * The inventory of the fault and bad-input checklist (shared/reference/faults-and-ecosystem.md
 * §1.4, items A1–K3): for each item, the tests that cover it, by file and by (part of) the test's
 * full name. scripts/reliability/report.ts runs those tests and checks that every reference
 * matches a test that passed; a reference marked `expectFail` is an `it.fails` test that
 * documents a known bug or gap and passes while the bug is still there.
 */

export interface TestRef {
  readonly file: string;
  /** A substring of the test's full name (describe titles and test title joined by " > "). */
  readonly test: string;
  /** An `it.fails` test: it documents a bug or a gap that is still open. */
  readonly expectFail?: boolean;
}

export type Status = "covered" | "partial" | "gap" | "n/a";

export interface Item {
  readonly id: string;
  readonly fault: string;
  readonly status: Status;
  readonly tests: readonly TestRef[];
  /** What differs from the checklist's expectation, or why it does not apply. */
  readonly note?: string;
}

export interface Finding {
  readonly kind: "bug" | "gap" | "limitation";
  readonly status: "open" | "fixed";
  /** The commit that fixed it, for `fixed` findings. */
  readonly fixedIn?: string;
  readonly title: string;
  /** `{{file|text}}` is replaced by `file:line` of the first line containing `text` when the report is made. */
  readonly where: string;
  readonly repro: string;
  readonly items: readonly string[];
  readonly tests: readonly TestRef[];
}

const R = "test/reliability";
const t = (file: string, test: string, expectFail = false): TestRef => (expectFail ? { file, test, expectFail } : { file, test });

export const sections: Record<string, string> = {
  A: "Composition core",
  B: "Decision semantics",
  C: "Timeouts and cancellation",
  D: "Command (shell) hooks",
  E: "HTTP hooks",
  F: "LLM-classifier (prompt) hooks",
  G: "Streaming",
  H: "Concurrency and shared state",
  I: "Data hygiene",
  J: "Configuration and matchers",
  K: "Errors and observability",
};

export const checklist: readonly Item[] = [
  // A. Composition core
  {
    id: "A1",
    fault: "Hook throws synchronously",
    status: "covered",
    tests: [
      t("test/core/failures.test.ts", "rejects with a reason naming the hook when a gate hook throws in"),
      t(`${R}/composition.test.ts`, "A1/A2: a hook that throws, in any phase, position and fail mode"),
    ],
  },
  {
    id: "A2",
    fault: "Hook rejects with a non-Error",
    status: "covered",
    tests: [
      t("test/core/failures.test.ts", "normalises any thrown value into a HookError with a readable reason"),
      t(`${R}/composition.test.ts`, "A2: the reason of a failure is never empty"),
      t(`${R}/fuzz.test.ts`, "settles every run once with a typed outcome, never throws, and classifies the failure"),
      t(`${R}/fuzz.test.ts`, "settles with an Outcome when a"),
    ],
    note: "Beyond the item: 36 hostile values (throwing getters, proxies, revoked proxies, odd thenables) from every phase; 12 of them made the run's promise reject until 2058b5a (see findings).",
  },
  {
    id: "A3",
    fault: "next() called twice",
    status: "covered",
    tests: [
      t("test/core/around.test.ts", "rejects a second concurrent next() and runs the operation once"),
      t("test/adapters/koa.test.ts", "fails the hook when a middleware calls next() twice, and runs the operation once"),
      t(`${R}/composition.test.ts`, "keeps a second dangling next() from running the operation again"),
    ],
  },
  {
    id: "A4",
    fault: "next() never called and no action returned",
    status: "covered",
    tests: [
      t("test/core/around.test.ts", "treats an around that returns nothing and never called next() as a failure with no decision"),
      t("test/adapters/koa.test.ts", "fails the hook when a middleware neither calls next(), sets output nor rejects"),
    ],
    note: "A `before` that returns nothing is `Continue` by design (R2); only an `around` must decide.",
  },
  {
    id: "A5",
    fault: "next() called but not awaited (dangling)",
    status: "covered",
    tests: [t(`${R}/composition.test.ts`, "A5: next() called but not awaited")],
  },
  {
    id: "A6",
    fault: "next() called after the chain settled",
    status: "covered",
    tests: [
      t(`${R}/composition.test.ts`, "A6: next() called after the chain settled"),
      t("test/core/around.test.ts", "rejects next() after the hook settled without running the operation again"),
    ],
  },
  {
    id: "A7",
    fault: "Invalid action object",
    status: "covered",
    tests: [
      t("test/core/failures.test.ts", "fails a hook that returns something that is not an action"),
      t(`${R}/composition.test.ts`, "A7: malformed action objects"),
      t(`${R}/fuzz.test.ts`, "settles every run once with a typed outcome"),
      t("test/executors/protocol.test.ts", "unreadable answers are failures naming the hook and the field"),
    ],
    note: "Extra keys on an otherwise valid in-process action are accepted; external hooks' JSON is strict (unknown fields are schema errors).",
  },
  {
    id: "A8",
    fault: "Hook mutates input",
    status: "covered",
    tests: [
      t("test/core/stack.test.ts", "freezes inputs and outputs in strict mode so a hook cannot change what another saw"),
      t("test/core/stack.test.ts", "freezes Transform values too"),
    ],
  },
  {
    id: "A9",
    fault: "Two transforms conflict",
    status: "covered",
    tests: [t("test/core/properties.test.ts", "gives the same Transform result under any completion order of async hooks")],
  },
  {
    id: "A10",
    fault: "Transform after gate approval changes the input",
    status: "covered",
    tests: [
      t("test/core/actions.test.ts", "rejects when a hook inside it rewrites an approved input into a forbidden one"),
      t(
        "test/middleware/tool-policy.test.ts",
        "re-checks right before the tool, so a hook further in cannot rewrite an allowed call into a denied one",
      ),
      t(`${R}/decisions.test.ts`, "an in-process Transform into a denied command, inside the policy"),
    ],
  },
  {
    id: "A11",
    fault: "10 000 hooks in one chain",
    status: "covered",
    tests: [
      t("test/core/order.test.ts", "handles ten thousand hooks in one chain without a stack overflow"),
      t(`${R}/composition.test.ts`, "runs 10 000 mixed sync and async hooks without a stack overflow"),
    ],
  },
  {
    id: "A12",
    fault: "Non-function hook, duplicate id, bad priority, unknown point",
    status: "covered",
    tests: [
      t("test/core/stack.test.ts", "throws a TypeError at registration for"),
      t("test/core/stack.test.ts", "throws for a duplicate name on the same point"),
      t("test/core/stack.test.ts", "throws for an unknown point, naming the hook"),
    ],
  },
  {
    id: "A13",
    fault: "Equal priorities",
    status: "covered",
    tests: [
      t("test/core/order.test.ts", "keeps registration order on the way in and reverses it on the way out for equal priorities"),
      t("test/core/properties.test.ts", "orders befores by (priority, registration) and afters in exact reverse"),
    ],
  },
  {
    id: "A14",
    fault: "Re-entrancy (a hook runs its own point again)",
    status: "partial",
    tests: [t(`${R}/composition.test.ts`, "refuses a run that re-enters the same point past a depth limit")],
    note: "Runs nested deeper than `maxDepth` (default 32) are refused with RecursionLimitError. Nesting is counted through RunOptions.path, which the agent loop extends for sub-agents; a hook that runs the stack again without passing `[...ctx.path, name]` is not counted (no AsyncLocalStorage on the hot path).",
  },
  {
    id: "A15",
    fault: "Same chain invoked many times concurrently",
    status: "covered",
    tests: [
      t("test/core/properties.test.ts", "keeps concurrent runs of one stack apart: no cross-talk between 1000 runs"),
      t(`${R}/load.test.ts`, "holds 10 000 concurrent runs through 20 async hooks"),
    ],
  },
  {
    id: "A16",
    fault: "Gate keeps blocking a stop loop",
    status: "covered",
    tests: [
      t("test/agent/stop.test.ts", "stops with stop-rejected-cap after maxStopBlocks consecutive blocks"),
      t("test/agent/stop.test.ts", "caps at the default of 8 blocks"),
    ],
  },

  // B. Decision semantics
  {
    id: "B1",
    fault: "Gates disagree",
    status: "covered",
    tests: [
      t(`${R}/decisions.test.ts`, "rejects exactly when some gate denies"),
      t(`${R}/decisions.test.ts`, "adding allow answers anywhere never turns a denial into an allow"),
      t("test/middleware/tool-policy.test.ts", "adding allow rules never turns a denial caused by a deny rule into an allow"),
      t("test/executors/protocol.test.ts", "allow never loosens a deny from another hook, in either order"),
    ],
  },
  {
    id: "B2",
    fault: "Hook allow vs static deny config",
    status: "covered",
    tests: [
      t(`${R}/decisions.test.ts`, "B2: a hook's allow never overrides the static deny policy"),
      t("test/middleware/tool-policy.test.ts", "lets deny win over an allow that also matches"),
    ],
  },
  {
    id: "B3",
    fault: "No gate matched / undefined decision",
    status: "covered",
    tests: [
      t("test/middleware/tool-policy.test.ts", "allows everything not denied when no allow list is given, unless the default says deny"),
      t("test/middleware/tool-policy.test.ts", "with an allow list, refuses what no rule allows and allows what one does"),
    ],
    note: "The default is the policy's `default`; a crashing or silent gate fails closed (R6).",
  },
  {
    id: "B4",
    fault: "Unknown tool name / new MCP tool",
    status: "covered",
    tests: [
      t(`${R}/decisions.test.ts`, "B4: a tool nobody has heard of"),
      t("test/middleware/tool-policy.test.ts", "is told once per tool name, with the default the policy applied"),
      t("test/middleware/tool-policy.test.ts", "emits a process warning by default, and keeps deciding when the notice throws"),
    ],
    note: 'Refused under an allow list or `default: "deny"`, with a reason; the first call to a tool no rule names is reported once (`onUnknownTool`, a process warning by default), whichever way the default decides.',
  },
  {
    id: "B5",
    fault: "Infrastructure error vs deny",
    status: "covered",
    tests: [
      t(`${R}/decisions.test.ts`, "gives a decision, a hook failure, an operation failure and an abort four distinguishable outcomes"),
      t(`${R}/decisions.test.ts`, "never tells the model a user rejected a call that a hook timeout or crash stopped"),
    ],
  },

  // C. Timeouts and cancellation
  {
    id: "C1",
    fault: "Hook never settles",
    status: "covered",
    tests: [
      t(`${R}/timeouts.test.ts`, "C1: a hook that never settles"),
      t("test/core/failures.test.ts", "fails a hook that exceeds its timeoutMs and aborts its signal"),
      t("test/core/cancellation.test.ts", "leaves no timer or listener behind after runs with deadlines and hook timeouts"),
    ],
  },
  {
    id: "C2",
    fault: "Caller aborts mid-chain",
    status: "covered",
    tests: [
      t("test/core/cancellation.test.ts", "settles as Failed(RunAbortedError) when the caller aborts mid-chain, and starts no later hook"),
      t(`${R}/timeouts.test.ts`, "C2: the caller aborts mid-chain"),
      t("test/executors/process.test.ts", "stops the process tree when the caller aborts"),
      t("test/executors/http.test.ts", "drops the request when the run is cancelled"),
      t("test/adapters/mcp.test.ts", "cancels a hanging tool on the server when the caller's signal aborts"),
      t("test/agent/errors.test.ts", "ends an aborted turn as aborted"),
      t("test/core/hostile.test.ts", "rejects a run whose signal is not an AbortSignal"),
      t("test/agent/caller-input.test.ts", "rejects with a TypeError before any timer starts"),
      t("test/executors/process.test.ts", "starts nothing and answers with a spawnError for a signal that is not an AbortSignal"),
    ],
  },
  {
    id: "C3",
    fault: "Timeout races resolution",
    status: "covered",
    tests: [
      t("test/core/cancellation.test.ts", "settles exactly once when a timeout races the result, whatever the interleaving"),
      t(`${R}/timeouts.test.ts`, "treats an answer that arrives past the hook's deadline as a timeout"),
      t(`${R}/soak.test.ts`, "survives 5 000 runs"),
    ],
  },
  {
    id: "C4",
    fault: "Fire-and-forget hook outlives its run",
    status: "covered",
    tests: [
      t(`${R}/timeouts.test.ts`, "C4: a fire-and-forget hook outlives its run"),
      t(`${R}/timeouts.test.ts`, "C4: cancelled on shutdown"),
      t("test/executors/http.test.ts", "never blocks the chain, queues at most its limit, counts drops, and flush waits for the rest"),
      t("test/executors/protocol.test.ts", "return at once, report their answer as a notice, and keep stack.flush() waiting"),
    ],
    note: "Bounded by its own deadline and awaited by `stack.flush()`; `BackgroundQueue.cancel()` is the shutdown: running hooks are aborted (a command's process is killed) and reported with a `cancelled` notice, waiting ones never start, and both are counted in `queue.cancelled`. The timers are not `unref`'d: `flush()` or `cancel()` ends them.",
  },
  {
    id: "C5",
    fault: "Invalid timeout configuration",
    status: "covered",
    tests: [
      t(`${R}/timeouts.test.ts`, "refuses a hook timeoutMs of"),
      t(`${R}/timeouts.test.ts`, "refuses a point timeoutMs of"),
      t(`${R}/timeouts.test.ts`, "refuses a command hook timeout of"),
      t(`${R}/timeouts.test.ts`, "refuses a settings timeout of"),
      t(`${R}/timeouts.test.ts`, "caps a command hook timeout above the maximum"),
      t(`${R}/timeouts.test.ts`, "refuses a run's timeoutMs of"),
    ],
    note: "Refused where given: at registration, point definition, executor construction or settings load (with the JSON pointer); a run's own `timeoutMs` rejects the run's promise with a TypeError. A command hook's timeout above the timer range is capped, as documented. Run and point values were unchecked until 2058b5a.",
  },

  // D. Command hooks
  {
    id: "D1",
    fault: "Shell metacharacters in tool args",
    status: "covered",
    tests: [
      t("test/executors/command.test.ts", "leaves the marker file uncreated for inputs full of shell metacharacters"),
      t(`${R}/fuzz.test.ts`, "leaves the marker uncreated for batches of generated injection payloads"),
    ],
  },
  {
    id: "D2",
    fault: "Hook exits without reading stdin; payload > 64 KB",
    status: "covered",
    tests: [
      t("test/executors/command.test.ts", "survives a script that exits without reading a 2 MB event"),
      t("test/executors/process.test.ts", "survives a child that exits without reading a 2 MB stdin (EPIPE)"),
    ],
  },
  {
    id: "D3",
    fault: "Hook waits for stdin EOF",
    status: "covered",
    tests: [
      t("test/executors/command.test.ts", "finishes a script that waits for EOF on stdin"),
      t("test/executors/process.test.ts", "lets a script that waits for EOF finish"),
    ],
  },
  {
    id: "D4",
    fault: "Hook ignores SIGTERM, spawns grandchildren",
    status: "covered",
    tests: [
      t("test/executors/command.test.ts", "kills the whole tree of a script that ignores SIGTERM, and fails closed"),
      t("test/executors/process.test.ts", "kills the whole process tree on timeout, escalating to SIGKILL when SIGTERM is ignored"),
      t("test/executors/process.test.ts", "does not wait for a grandchild that keeps stdout open after the hook exited, and kills it"),
    ],
  },
  {
    id: "D5",
    fault: "Child killed mid-hook",
    status: "covered",
    tests: [
      t("test/executors/command.test.ts", "fails a hook killed by a signal"),
      t("test/executors/process.test.ts", "reports a child killed by a signal it did not expect"),
    ],
  },
  {
    id: "D6",
    fault: "Spawn failure",
    status: "covered",
    tests: [
      t("test/executors/command.test.ts", "fails a missing script (shell form: exit 127) and a non-executable one (exec form: EACCES)"),
      t("test/executors/process.test.ts", "reports a missing executable and a non-executable file as spawn errors"),
      t("test/executors/command.test.ts", "fails closed when the script's interpreter line names a missing program"),
      t("test/executors/command.test.ts", "fails closed, naming EMFILE, when the process has no file descriptor left to spawn with"),
      t("test/executors/settings.test.ts", "fromClaudeSettings: command paths checked at load (D6)"),
    ],
    note: "ENOENT, EACCES, a missing interpreter, EMFILE (a child under `ulimit -n`) and exit 127 all fail the gate closed with the cause in the reason; `fromClaudeSettings` warns at load about a program path that does not exist, is a directory or may not be executed (paths found on PATH or built from other variables are known only when they run).",
  },
  {
    id: "D7",
    fault: "Exit-code ambiguity",
    status: "covered",
    tests: [
      t("test/executors/command.test.ts", "blocks on exit 2 with stderr as the reason"),
      t("test/executors/command.test.ts", "treats exit 1 without JSON as a hook failure: closed by default"),
      t("test/executors/command.test.ts", "honours valid JSON on another exit code"),
    ],
    note: "The mapping is Claude Code's (fixed, not configurable); any unexpected code on a gate fails closed.",
  },
  {
    id: "D8",
    fault: "Huge / binary / banner+JSON stdout; chatty stderr",
    status: "covered",
    tests: [
      t("test/executors/command.test.ts", "fails a hook whose stdout passes the cap, and one whose stdout is not UTF-8"),
      t("test/executors/protocol.test.ts", "a banner printed before the JSON"),
      t("test/executors/process.test.ts", "keeps only the head of a chatty stderr"),
      t("test/executors/sanitize.test.ts", "caps text at 10 000 characters and marks the cut"),
      t("test/executors/limits.test.ts", "refuses commandHook's maxStdoutBytes of NaN"),
    ],
  },
  {
    id: "D9",
    fault: "ANSI/OSC/bidi control characters",
    status: "covered",
    tests: [
      t("test/executors/command.test.ts", "strips terminal escapes and bidi overrides from a blocking reason"),
      t("test/executors/protocol.test.ts", "systemMessage becomes a notice, cleaned of escapes"),
      t("test/executors/sanitize.test.ts", "stripTerminal"),
    ],
    note: "In-process hooks' failure reasons are cleaned too (K1).",
  },
  {
    id: "D10",
    fault: "Secrets in inherited env",
    status: "covered",
    tests: [
      t("test/executors/command.test.ts", "gives the child an allowlisted environment without our secrets"),
      t("test/executors/env.test.ts", "copies only allowlisted variables, never secrets"),
    ],
  },
  {
    id: "D11",
    fault: "Hooks from an untrusted project config",
    status: "covered",
    tests: [t(`${R}/config.test.ts`, "does not load command hooks from a project's own settings nobody trusted")],
    note: "An expected failure in this suite's first version; the trust gate landed in b192bdd.",
  },
  {
    id: "D12",
    fault: "cwd deleted",
    status: "covered",
    tests: [
      t(`${R}/external.test.ts`, "fails the gate closed, naming the directory, and never runs the tool"),
      t("test/executors/process.test.ts", "reports a working directory that does not exist before trying to spawn"),
    ],
    note: "Differs deliberately: the hook fails (a gate denies) instead of spawning from a fallback directory.",
  },

  // E. HTTP hooks
  {
    id: "E1",
    fault: "Endpoint hangs or drips",
    status: "covered",
    tests: [
      t("test/executors/http.test.ts", "fails when the server accepts but never answers (header timeout)"),
      t("test/executors/http.test.ts", "fails when the body never completes, or drips forever (body timeout)"),
    ],
  },
  { id: "E2", fault: "5xx / 4xx", status: "covered", tests: [t("test/executors/http.test.ts", "fails closed on a 500")] },
  {
    id: "E3",
    fault: "2xx with malformed JSON, text, empty body, huge body",
    status: "covered",
    tests: [
      t("test/executors/http.test.ts", "fails closed on malformed JSON"),
      t("test/executors/http.test.ts", "fails closed on plain text"),
      t("test/executors/http.test.ts", "fails closed on a body over the cap"),
      t("test/executors/http.test.ts", "treats a 2xx with an empty body as no decision"),
      t("test/executors/limits.test.ts", "refuses httpHook's maxBodyBytes of NaN"),
    ],
  },
  {
    id: "E4",
    fault: "Redirect to a private address",
    status: "covered",
    tests: [t("test/executors/http.test.ts", "never follows a redirect, to a private address or anywhere")],
  },
  {
    id: "E5",
    fault: "Private IPs, DNS rebinding, odd encodings",
    status: "covered",
    tests: [
      t("test/executors/http.test.ts", "checks every resolution at connect time"),
      t("test/executors/http.test.ts", "sees through the odd IPv4 spelling"),
      t("test/executors/http.test.ts", "refuses an IPv4-mapped IPv6 loopback literal"),
      t("test/executors/ssrf.test.ts", "refuses the connection when any resolved address is private"),
    ],
  },
  {
    id: "E6",
    fault: "URL allowlist bypass",
    status: "covered",
    tests: [
      t(`${R}/config.test.ts`, "E6: the allowedHttpHookUrls allowlist"),
      t("test/executors/http.test.ts", "refuses CR/LF in configured headers and in interpolated values, and credentials in the URL"),
    ],
    note: "An expected failure in this suite's first version (a host `*` spanned `/`, `?`, `#`); fixed in b192bdd.",
  },
  {
    id: "E7",
    fault: "Header interpolation; CR/LF",
    status: "covered",
    tests: [
      t("test/executors/env.test.ts", "expands $VAR and ${VAR} from the allowlist only; others become empty"),
      t("test/executors/env.test.ts", "refuses a value that would smuggle a header through CR or LF"),
    ],
  },
  {
    id: "E8",
    fault: "Fire-and-forget endpoint slow at a high event rate",
    status: "covered",
    tests: [t(`${R}/external.test.ts`, "never blocks 2 000 runs, keeps the queue at its limit, counts every drop")],
  },
  {
    id: "E9",
    fault: "Retries",
    status: "covered",
    tests: [
      t(`${R}/external.test.ts`, "asks a failing HTTP gate once per run"),
      t(`${R}/external.test.ts`, "carries the tool call id in every event"),
    ],
    note: "External hooks never retry; `tool_use_id` is in every event for endpoints that deduplicate.",
  },

  // F. Prompt hooks
  {
    id: "F1",
    fault: "Classifier answers non-JSON, no reason, refusal, API error",
    status: "covered",
    tests: [
      t("test/executors/prompt.test.ts", "quoting what the model said"),
      t("test/executors/prompt.test.ts", "keeps the provider's own error text"),
      t("test/executors/prompt.test.ts", "fails closed when the model calls a tool instead of answering"),
    ],
  },
  {
    id: "F2",
    fault: "Injection in evaluated content",
    status: "covered",
    tests: [
      t("test/executors/prompt.test.ts", "gives the event as delimited data that the data itself cannot close"),
      t("test/executors/prompt.test.ts", "cannot outvote a deterministic deny (F2)"),
    ],
  },
  {
    id: "F3",
    fault: "Classifier slow / rate-limited",
    status: "covered",
    tests: [
      t("test/executors/prompt.test.ts", "fails when the model is slower than the hook's timeout"),
      t("test/core/signal.test.ts", "still fires when only a pending listener holds it and a collection runs meanwhile"),
      t("test/executors/prompt.test.ts", "promptHook verdict cache (F3)"),
    ],
    note: "A deadline of its own (its own timer, see findings); `cache: { ttlMs }` keeps verdicts by a hash of the event without its tool call id, failures excepted; the judge's tokens count in a budget when its model is wrapped with `wrapModel` over a stack with `budget`.",
  },
  {
    id: "F4",
    fault: "Payload exceeds classifier context",
    status: "covered",
    tests: [
      t("test/executors/prompt.test.ts", "appends the event when the prompt has no $ARGUMENTS, and marks a truncated event"),
      t("test/executors/limits.test.ts", "refuses promptHook's maxEventChars of -10"),
    ],
  },

  // G. Streaming
  {
    id: "G1",
    fault: "Output gate not applied on the streaming path",
    status: "covered",
    tests: [
      t("test/agent/stream-gate.test.ts", "gives the same verdict on both paths"),
      t("test/adapters/ai-sdk.test.ts", "gives an output gate the same verdict on streamText as on generateText"),
    ],
  },
  {
    id: "G2",
    fault: "Violation after chunks were delivered",
    status: "covered",
    tests: [
      t("test/agent/stream-gate.test.ts", "gives a plain after guard the same verdict when the caller holds the whole answer back"),
      t("test/agent/stream-gate.test.ts", "reports divergence when a plain after hook changes text that was already streamed"),
      t("test/middleware/redaction.test.ts", "blocks a streamed answer holding a blocked kind: nothing of it is released"),
    ],
  },
  {
    id: "G3",
    fault: "Secret split across chunks",
    status: "covered",
    tests: [
      t("test/agent/stream-gate.test.ts", "is never emitted, for every pair of split points"),
      t("test/middleware/stream-redactor.test.ts", "never emits a secret under any chunking (property)"),
      t(
        "test/middleware/stream-redactor.test.ts",
        "comes out as the whole text's redaction under any chunking of secrets in awkward company (property)",
      ),
      t("test/adapters/ai-sdk.test.ts", "never emits a secret split across chunk boundaries, at any split index"),
    ],
    note: "Until 389a364 five chunkings differed from redacting the whole text, three of them leaking (see findings).",
  },
  {
    id: "G4",
    fault: "Stream aborted / upstream error",
    status: "covered",
    tests: [
      t(
        "test/agent/stream-lifecycle.test.ts",
        "still runs the post-phase, with the partial text and estimated usage, when the caller aborts",
      ),
      t("test/agent/stream-lifecycle.test.ts", "reports an upstream error after the partial answer"),
      t("test/agent/stream-lifecycle.test.ts", "stops the provider and runs the post-phase when the consumer stops reading"),
    ],
  },
  {
    id: "G5",
    fault: "Transform breaks the stream protocol",
    status: "covered",
    tests: [
      t("test/adapters/ai-sdk.test.ts", "keeps the stream valid for the SDK: framed text, the provider's metadata, finish last"),
      t("test/adapters/ai-sdk-v4.test.ts", "passes other parts through in order"),
    ],
  },
  {
    id: "G6",
    fault: "Redaction not applied downstream",
    status: "covered",
    tests: [
      t(
        "test/middleware/redaction.test.ts",
        "keeps PII and secrets out of what the model, the tools and the caller receive, generate and stream alike",
      ),
      t("test/middleware/audit.test.ts", "scrubs PII and secrets from what it writes"),
    ],
  },

  // H. Concurrency and shared state
  {
    id: "H1",
    fault: "Parallel calls near a budget cap",
    status: "covered",
    tests: [
      t("test/stores/redis-processes.test.ts", "four processes reserving before each call settle exactly the limit"),
      t("test/middleware/budget.test.ts", "never lets parallel calls spend past the limit"),
    ],
  },
  {
    id: "H2",
    fault: "Failure after reserve; crashed holder",
    status: "covered",
    tests: [
      t("test/stores/redis-processes.test.ts", "a SIGKILLed worker's reservation keeps counting until its TTL"),
      t("test/middleware/budget.test.ts", "refunds the reservation when the call fails"),
      t("test/middleware/budget-redis.test.ts", "refunds a failed call's reservation on the server"),
      t("test/middleware/budget.test.ts", "renews a reservation while its call runs longer than the lease"),
      t("test/middleware/budget.test.ts", "retries a settle whose answer was lost and counts the spend once"),
    ],
    note: "A reservation is a lease renewed while its call runs (default 10 s), so a crashed holder's hold is returned within a lease.",
  },
  {
    id: "H3",
    fault: "Redis down / slow",
    status: "covered",
    tests: [
      t("test/stores/redis-unavailable.test.ts", "when nothing listens on the port"),
      t("test/stores/redis-unavailable.test.ts", "after timeoutMs when the server is slow"),
      t("test/middleware/budget.test.ts", "refuses the call (fail closed) when it cannot reserve"),
      t("test/stores/redis-faults.test.ts", "budgets and limits across processes while redis-server fails"),
      t("test/middleware/budget.test.ts", "releases a reservation whose answer was lost though it ran"),
    ],
    note: "Three processes through a stalled (SIGSTOP), a killed and a restarted server: nothing admitted while it is down, totals exact after each fault; recovery times are measured by `npx tsx benchmarks/redis-recovery.bench.ts` (docs/state-and-redis.md).",
  },
  {
    id: "H4",
    fault: "Non-atomic implementation",
    status: "covered",
    tests: [
      t("test/stores/redis.test.ts", "concurrent reserves never admit more than the limit"),
      t("test/stores/redis.test.ts", "concurrent incrWithin calls never pass the limit"),
      t("test/stores/redis.test.ts", "reserves and reads a budget in time independent of how many reservations it holds"),
    ],
  },
  {
    id: "H5",
    fault: "Float, NaN, negative, Infinity amounts",
    status: "covered",
    tests: [
      t("test/middleware/budget.test.ts", "refuses float, NaN and missing prices at configuration"),
      t("test/stores/redis.test.ts", "invalid amounts are refused with a RangeError by every bounded operation"),
    ],
  },
  {
    id: "H6",
    fault: "Parallel observers writing shared state",
    status: "covered",
    tests: [t("test/stores/redis.test.ts", "concurrent incr calls lose no update")],
  },
  {
    id: "H7",
    fault: "Soak: 100k chains, 1 % random hook faults",
    status: "covered",
    tests: [
      t(`${R}/soak.test.ts`, "survives 5 000 runs"),
      t(`${R}/soak.test.ts`, "the soak fails > when a run never settles"),
      t(`${R}/soak.test.ts`, "the soak fails > when every run leaks a little"),
      t("test/agent/session-memory.test.ts", "runs 5 000 turns with the standard middleware in flat memory"),
    ],
    note: "The full 100 000-run soak is `npm run soak`, run by `npm run reliability`; its figures are below. A session of 5 000 turns is the long-running form for the agent (heap per turn: `npx tsx benchmarks/session-memory.bench.ts`).",
  },

  // I. Data hygiene
  {
    id: "I1",
    fault: "Hook JSON with __proto__, constructor.prototype",
    status: "covered",
    tests: [
      t("test/executors/json.test.ts", "never pollutes Object.prototype, whatever keys the JSON has"),
      t("test/executors/protocol.test.ts", "__proto__ and constructor keys in updatedInput never reach our objects"),
      t("test/executors/settings.test.ts", "keeps __proto__ in a settings file from reaching anything"),
      t(`${R}/fuzz.test.ts`, "reads any answer into a typed result or an ExecutorError, and never touches a prototype"),
    ],
  },
  {
    id: "I2",
    fault: "10 MB tool input; 10 000-deep nesting",
    status: "covered",
    tests: [
      t(`${R}/data-hygiene.test.ts`, "runs a 10 MB tool input through the onion"),
      t(`${R}/data-hygiene.test.ts`, "refuses 10 000-deep nesting for an external hook with a clear error"),
      t("test/executors/json.test.ts", "refuses nesting deeper than its limit instead of overflowing the stack"),
      t(`${R}/data-hygiene.test.ts`, "settles with an Outcome for 10 000-deep input in strict mode"),
    ],
    note: "Until 2058b5a a 10 000-deep input in strict mode overflowed the stack in deepFreeze and `stack.run` threw (see findings).",
  },
  {
    id: "I3",
    fault: "Lone surrogates, NUL, zero-width, RTL, homoglyphs",
    status: "covered",
    tests: [
      t(`${R}/data-hygiene.test.ts`, "I3: awkward unicode"),
      t(`${R}/fuzz.test.ts`, "registers or refuses a name, runs, rejects with the reason as given"),
      t(`${R}/fuzz.test.ts`, "matches path rules on canonical forms"),
      t("test/core/match/condition.test.ts", "normalises to NFC"),
    ],
  },
  {
    id: "I4",
    fault: "Non-serialisable values to external hooks",
    status: "covered",
    tests: [
      t("test/executors/json.test.ts", "names the field that JSON cannot carry"),
      t(`${R}/data-hygiene.test.ts`, "fails the hook closed naming the field for"),
    ],
  },
  {
    id: "I5",
    fault: "Path traversal in matched paths",
    status: "partial",
    tests: [
      t("test/core/match/condition.test.ts", "a path condition normalises the path before matching"),
      t(`${R}/data-hygiene.test.ts`, "I5: path spellings against a path rule"),
    ],
    note: "Paths are canonicalised as text (NFC, `\\` to `/`, `.` and `..` resolved, `//abs`); symlinks and `~` are not resolved: matchers never touch the file system.",
  },
  {
    id: "I6",
    fault: "Secrets in logs, traces, metrics",
    status: "covered",
    tests: [
      t("test/middleware/audit.test.ts", "scrubs PII and secrets from what it writes, even kinds that would block"),
      t("test/middleware/metrics.test.ts", "never tool arguments"),
    ],
  },

  // J. Configuration and matchers
  {
    id: "J1",
    fault: "Malformed config entry",
    status: "covered",
    tests: [
      t(`${R}/config.test.ts`, "stops the load naming the file and JSON pointer"),
      t(`${R}/config.test.ts`, "never disables unrelated entries"),
      t("test/executors/settings.test.ts", "names the file and JSON pointer of a malformed entry"),
    ],
    note: "Stricter than the checklist: a malformed observer entry also stops the load (fail fast for every entry).",
  },
  {
    id: "J2",
    fault: "Matcher surprises",
    status: "covered",
    tests: [t("test/core/match/matcher.test.ts", "a matcher follows Claude Code's matcher table")],
  },
  {
    id: "J3",
    fault: "ReDoS via glob/regex patterns",
    status: "covered",
    tests: [
      t("test/core/match/properties.test.ts", "matching stays within a time budget (no ReDoS)"),
      t(`${R}/fuzz.test.ts`, "compiles any generated pattern and matches it against long adversarial subjects"),
    ],
    note: "Globs, shell and domain conditions are linear and fuzzed at full length; a RegExp matcher is the user's own (trusted config, length-capped at 1024) and runs on V8's backtracking engine: `.*.*a_x` is cubic (~57 ms on a 500-character subject), so the fuzzing keeps RegExp subjects to 500 characters and one unbounded quantifier.",
  },
  {
    id: "J4",
    fault: "`Bash(...)` vs compound commands, wrappers, quoting",
    status: "partial",
    tests: [
      t("test/core/match/shell.test.ts", "a Bash(rm *) condition"),
      t("test/core/match/properties.test.ts", "a Bash(rm *) condition catches rm nested in substitutions, subshells and wrappers"),
      t(`${R}/fuzz.test.ts`, "catches rm behind any mix of separators, wrappers, env prefixes, quoting, substitutions and subshells"),
      t("test/middleware/tool-policy.test.ts", "allows a compound command only when every part is allowed"),
      t(`${R}/fuzz.test.ts`, "a case pattern inside a double-quoted substitution"),
    ],
    note: "A program outside the wrapper table that runs its arguments as a command hides that command from a deny list (the documented limit); an allow list refuses it. See docs/shell-analysis.md.",
  },
  {
    id: "J5",
    fault: "Same hook in several layers",
    status: "covered",
    tests: [t("test/executors/settings.test.ts", "runs an identical handler defined in two layers once, and says which copy was dropped")],
  },

  // K. Errors and observability
  {
    id: "K1",
    fault: "Any failure names hook, source, event, phase, elapsed",
    status: "covered",
    tests: [
      t(`${R}/observability.test.ts`, "fills every field of the HookError and puts them in its message"),
      t("test/executors/settings.test.ts", "names the source in the reason when a settings hook fails"),
      t(`${R}/observability.test.ts`, "keeps terminal escapes out of a failure reason"),
    ],
    note: "Reasons are cleaned of terminal controls and bidi overrides since 2058b5a.",
  },
  {
    id: "K2",
    fault: "Fail-open fired",
    status: "covered",
    tests: [
      t(`${R}/observability.test.ts`, "counts every fail-open failure and reports it to onFailure"),
      t("test/middleware/metrics.test.ts", "counts rejections, shadow rejections, failures and fail-open failures"),
      t("test/middleware/tracing.test.ts", "adds one child span per hook decision"),
    ],
  },
  {
    id: "K3",
    fault: "Telemetry backend down / slow",
    status: "covered",
    tests: [
      t(`${R}/observability.test.ts`, "keeps 1 000 runs correct and fast with a throwing meter, a throwing tracer and a slow observer"),
      t("test/middleware/tracing.test.ts", "never refuses a call when tracing itself breaks"),
      t("test/middleware/audit.test.ts", "counts a write failure as an observer error"),
      t("test/core/stack.test.ts", "isolates and counts observer errors and never delays the chain"),
    ],
  },
];

export const findings: readonly Finding[] = [
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "2058b5a",
    title: "A 10 000-deep input made `stack.run` throw synchronously in strict mode",
    where: "src/core/stack.ts (execute: `deepFreeze(input)` outside the try), src/core/readonly.ts (deepFreeze recursed per level)",
    repro:
      'createStack(points, { strict: true }).use(p, { name: "h", before: () => Continue }).run(p, deep(10_000), op) threw RangeError: Maximum call stack size exceeded instead of settling',
    items: ["I2"],
    tests: [t(`${R}/data-hygiene.test.ts`, "settles with an Outcome for 10 000-deep input in strict mode")],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "2058b5a",
    title: "A run's `timeoutMs` was not checked; a point's `timeoutMs` had no upper bound",
    where: "src/core/stack.ts (run), src/core/point.ts (definePoint)",
    repro:
      "stack.run(p, input, op, { timeoutMs: Infinity }) settled Failed(RunAbortedError) after 1 ms with a TimeoutOverflowWarning; -1, 0, NaN, 2^31 likewise; gate({ name, timeoutMs: 2 ** 31 }) was accepted",
    items: ["C5"],
    tests: [t(`${R}/timeouts.test.ts`, "refuses a run's timeoutMs of"), t(`${R}/timeouts.test.ts`, "refuses a point timeoutMs of 2^31")],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "2058b5a",
    title: "Hostile objects from an async hook made the run's promise reject",
    where:
      "src/core/chain.ts (checkAction read `_tag` unguarded), src/core/around.ts (settle → Outcome.is), src/core/errors.ts (describe's fallback threw for proxies)",
    repro:
      'use(p, { name: "h", before: async () => ({ get _tag() { throw new Error("x") } }) }) made stack.run reject with Error x; an async hook throwing a revoked Proxy likewise (12 of 36 combinations)',
    items: ["A2", "A7"],
    tests: [t(`${R}/fuzz.test.ts`, "settles with an Outcome when a")],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "8cb4e18",
    title: "`stack.run` threw synchronously for a signal that is not an AbortSignal, or options that throw when read",
    where: "src/core/stack.ts (run: linkSignal and the RunContext constructor read the caller's options outside any try)",
    repro:
      "stack.run(p, input, op, { signal: {} }) threw TypeError: parent.addEventListener is not a function out of run(); options given as a Proxy whose get throws, or with a throwing sessionId getter, threw likewise, where every other caller mistake rejects the returned promise",
    items: ["C2", "A12"],
    tests: [
      t("test/core/hostile.test.ts", "rejects a run whose signal is not an AbortSignal"),
      t("test/core/hostile.test.ts", "rejects a run whose options throw when read"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "e74d067",
    title:
      "A signal that is not an AbortSignal made `sleep` and `runProcess` throw later, from a timer or a child's handler, ending the process",
    where:
      "src/agent/sleep.ts (the timer's removeEventListener), src/executors/process.ts (addEventListener after spawn; finish's removeEventListener)",
    repro:
      "sleep(20, {}) rejected, then its timer threw an uncaught TypeError 20 ms later; runProcess({ …, signal: {} }) spawned the child, rejected (it never rejects otherwise), left the child running, and threw from its close handler when it ended. Fixed for runProcess in 7abd774. Found by an audit of every entry point (session 3), with streamThroughStack, wrapModel(...).stream and wrapTool(...).call throwing out of the call on bad options",
    items: ["C2"],
    tests: [
      t("test/agent/caller-input.test.ts", "rejects with a TypeError before any timer starts"),
      t("test/executors/process.test.ts", "starts nothing and answers with a spawnError for a signal that is not an AbortSignal"),
    ],
  },
  {
    kind: "gap",
    status: "fixed",
    fixedIn: "7abd774",
    title: "Executor limits of NaN or Infinity were accepted, and the cap they set vanished",
    where:
      "src/executors/command.ts, http.ts, prompt.ts, agent-hook.ts (no check of maxStdoutBytes, maxBodyBytes, maxEventChars, maxSteps, killGraceMs)",
    repro:
      "commandHook({ …, maxStdoutBytes: NaN }) took 5 MB of stdout; httpHook({ …, maxBodyBytes: NaN }) a 20 MB body; promptHook({ …, maxEventChars: -10 }) sent 200k characters to the judge; agentHook({ …, maxSteps: 0 }) registered and then refused every run",
    items: ["D8", "E3", "F4"],
    tests: [
      t("test/executors/limits.test.ts", "refuses commandHook's maxStdoutBytes of NaN"),
      t("test/executors/limits.test.ts", "refuses httpHook's maxBodyBytes of NaN"),
      t("test/executors/limits.test.ts", "refuses promptHook's maxEventChars of -10"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "8e37b3d",
    title: "`Bash(rm *)` missed rm after a `case` pattern inside a double-quoted `$(…)`",
    where: "src/core/match/shell-syntax.ts, src/core/match/shell.ts",
    repro:
      'compileMatcher("Bash(rm *)", "h").test("Bash", {}, () => \'echo "$(case x in x) rm -rf /;; esac)"\') was false; bash runs the rm',
    items: ["J4"],
    tests: [t(`${R}/fuzz.test.ts`, "a case pattern inside a double-quoted substitution")],
  },
  {
    kind: "gap",
    status: "fixed",
    fixedIn: "2058b5a",
    title: "An in-process hook's error message reached the model and terminals uncleaned",
    where: "src/core/errors.ts (describe)",
    repro:
      'before: () => { throw new Error("\\u001b]52;c;…\\u0007") } put the OSC 52 sequence in the Rejected reason and the tool result the model reads',
    items: ["K1"],
    tests: [t(`${R}/observability.test.ts`, "keeps terminal escapes out of a failure reason")],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "2058b5a",
    title: "Under event-loop lag a hook's late answer could beat its own timeout",
    where: "src/core/invoke.ts (invokeTimed)",
    repro:
      "setTimeout(noop, 60); await sleep(50); run a gate whose hook (timeoutMs 15) awaits sleep(60), then block the loop 100 ms: Completed after 103 ms (the soak met it: 3 of 100 000 runs)",
    items: ["C1", "C3"],
    tests: [t(`${R}/timeouts.test.ts`, "treats an answer that arrives past the hook's deadline as a timeout")],
  },
  {
    kind: "limitation",
    status: "open",
    title: "Wrappers outside SHELL_WRAPPERS hide the command they run from a deny rule",
    where:
      "{{src/core/match/shell.ts|export const SHELL_WRAPPERS}} (a fixed list; 8e37b3d and b88da36 extended it with ionice, setsid, chroot, flock, su -c, taskset, busybox, pkexec, systemd-run, numactl, script -c, parallel…)",
    repro:
      "`sg wheel 'rm -rf /'` (a command given as a positional string) and any wrapper nobody listed do not match Bash(rm *). An allow list (toolPolicy allow) is the robust guard: it refuses any command it does not name",
    items: ["J4"],
    tests: [t(`${R}/fuzz.test.ts`, "wrapper not in SHELL_WRAPPERS", true)],
  },
  {
    kind: "gap",
    status: "fixed",
    fixedIn: "3d55a7a",
    title: "There was no re-entrancy guard",
    where: "{{src/core/stack.ts|run(point: string, input: unknown}}",
    repro:
      "a before hook that awaits stack.run on its own point recursed without limit; now refused past maxDepth when the nested run carries its path",
    items: ["A14"],
    tests: [t(`${R}/composition.test.ts`, "refuses a run that re-enters the same point past a depth limit")],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "d2b4e66",
    title: "A prompt or agent hook's deadline could silently never come",
    where:
      "src/executors/prompt.ts, src/executors/agent-hook.ts, src/executors/external.ts (the model's signal was `AbortSignal.any([signal, AbortSignal.timeout(ms)])`)",
    repro:
      "Node 20 holds a timeout signal weakly; inside `AbortSignal.any` it can be collected before it fires (nodejs/node#57736). A garbage collection while a 1 s model call waited on a 100 ms deadline let the call finish and the gate pass: CI saw Completed for prompt.test.ts › fails when the model is slower than the hook's timeout. Now `withDeadline` (src/core/signal.ts) keeps its own timer",
    items: ["C1", "F3"],
    tests: [t("test/core/signal.test.ts", "still fires when only a pending listener holds it and a collection runs meanwhile")],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "4cf82ac",
    title: "A kept next() of an around hook that answered with next()'s own promise could rerun the operation",
    where: "{{src/core/around.ts|handOn(): Step}}",
    repro:
      "an outer hook with an `after`, then around: (c, next) => { const p = next(); p.then(() => next()); return p }: the operation ran twice and no failure was reported (and a next() kept for a setTimeout turned the run into a Rejected); found in review of the pass-through change, which settles such a hook when it returns",
    items: ["A5", "A6"],
    tests: [t("test/core/around.test.ts", "so a next() called from its own callback on that promise never reruns the operation")],
  },
  // Found in the fourth session, most by two audit helpers (adapters and middleware; stores, CLI and executors).
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "6afb044",
    title: "A wrapped MCP client left one abort listener per call on a process-wide signal",
    where:
      "{{src/core/signal.ts|export const neverAborted}} (shared by unguarded runs), src/adapters/mcp.ts (the SDK's request listens on the signal it is given)",
    repro:
      "1 000 calls through wrapMcpClient with no caller signal: 1 000 abort listeners on the shared never-aborting signal, and a MaxListenersExceededWarning; any operation that listens on ctx.signal and never unhooks did the same. That signal now keeps no abort listener (it can never abort)",
    items: ["C2"],
    tests: [
      t("test/core/signal.test.ts", "never aborts, so it keeps no abort listener that an operation forgets to remove"),
      t("test/adapters/mcp.test.ts", "leaves no abort listener behind on the run's signal"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "6ee85d4",
    title: "A session ignored the cancel of a lookalike (polyfill) prompt signal",
    where: "src/agent/session.ts (the turn's signal was `AbortSignal.any([session, prompt])`)",
    repro:
      "Node 20's AbortSignal.any accepts a signal that is not Node's own but never sees it abort later: session.prompt(\"hi\", { signal: polyfillSignal }) ran its 5 s model call to the end after the signal aborted at 20 ms",
    items: ["C2"],
    tests: [
      t("test/agent/caller-input.test.ts", "ends the turn as aborted when the prompt's lookalike signal aborts while the model answers"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "843b762",
    title: "An approver was never told that its question timed out",
    where: "{{src/middleware/approval.ts|untilAbort(asked, ended)}}",
    repro:
      "approval({ timeoutMs: 50 }) denied after 50 ms, but the approver's signal (the run's) never aborted, so a terminal prompt or chat question stayed open and its late answer was silently dropped",
    items: ["C1", "C2"],
    tests: [t("test/middleware/approval.test.ts", "aborts the approver's signal when the wait times out")],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "4100566",
    title: "HTTP hooks on SessionEnd waited up to 600 s",
    where:
      "src/executors/http.ts (its own default), now {{src/executors/external.ts|export const claudeDefaultSeconds}} for command and HTTP hooks",
    repro:
      'httpHook({ event: "SessionEnd", url }) had a 600 s deadline where Claude Code gives SessionEnd hooks a 1.5 s budget (command hooks already had it): closing a session waited on a hanging endpoint for ten minutes',
    items: ["C1"],
    tests: [t("test/executors/limits.test.ts", "follow Claude Code's: 1.5 s on SessionEnd")],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "abb0f19",
    title: "`claude-hook` approved every approval asked outside PreToolUse, silently",
    where: "src/cli/claude-hook.ts (its approval handler)",
    repro:
      "a userPrompt or after-tool hook that asks ctx.approve and rejects on deny: through `agent-onion claude-hook` on UserPromptSubmit or PostToolUse it was approved (exit 0, no output), where in process with no handler it is denied; Claude Code asks a person only on PreToolUse",
    items: ["K2", "B3"],
    tests: [t("test/cli/main.test.ts", "denies an approval asked on any other event, where Claude Code has no one to ask")],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "8a95561",
    title: "A retry around the bridge's PreToolUse stand-in ran the guards three times",
    where: "src/executors/bridge.ts (the stand-in failed with a marker error)",
    repro:
      "retry({ point: \"toolCall\", attempts: 3 }) plus a counting before-guard, one PreToolUse event through the bridge: the guard ran 3 times and the answer took 606 ms of backoff; a kept hook's recover also ran on the marker. The stand-in now ends its run by aborting the run's own signal",
    items: ["E9"],
    tests: [
      t("test/executors/bridge.test.ts", "ends the run where the call reaches the tool, so a retry around it never runs the guards again"),
      t("test/executors/bridge.test.ts", "never runs a kept hook's recover on the stand-in"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "f1ee8cc",
    title: "`explain` called hooks skipped that `claude-hook` runs",
    where: "src/cli/explain.ts (it checked the event's main phase), {{src/executors/bridge.ts|export const bridgedPhases}}",
    repro:
      'an around guard on toolCall and an after hook on userPrompt: explain listed both as "skipped: no before phase", while claude-hook denied rm -rf with the first and blocked the prompt with the second',
    items: ["J2"],
    tests: [t("test/cli/main.test.ts", "lists a hook as running exactly when claude-hook runs it")],
  },
  {
    kind: "gap",
    status: "fixed",
    fixedIn: "fa14031",
    title: "`try` and `explain` refused any settings file with a prompt or agent hook",
    where: "{{src/executors/settings.ts|withoutModel}}",
    repro:
      'a settings file with a PreToolUse command hook and a Stop prompt hook: `agent-onion explain` and `try` exited 1 (prompt hooks need a model), though the CLI has no way to give one; they now list the hook under "not run" with the reason',
    items: ["J1"],
    tests: [
      t("test/cli/main.test.ts", "decide with the other hooks and list the prompt hook as not run"),
      t("test/executors/settings.test.ts", "lists a prompt or agent hook without a model as unused"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "7b085f5",
    title: 'The README\'s `fromClaudeSettings(["~/.claude/settings.json", …])` threw',
    where: "src/executors/settings-load.ts (readLayer read the literal `~`)",
    repro:
      'fromClaudeSettings(["~/.claude/settings.json"]) threw SettingsError: cannot read the file: ENOENT, with the file present in the home directory',
    items: ["J1"],
    tests: [t("test/executors/settings.test.ts", "reads ~/ in a path as the user's home")],
  },
  {
    kind: "gap",
    status: "fixed",
    fixedIn: "4100566",
    title: "maxInputBytes, maxFileBytes and maxResults were not checked",
    where: "src/executors/external.ts, src/executors/readonly-tools.ts",
    repro:
      "maxInputBytes: NaN sent a 200 KB event with no cap and -1 refused every run; readOnlyTools({ maxResults: NaN }) returned nothing and maxFileBytes: -5 returned all but 5 bytes of a file. Read also read a whole file before cutting it, and would wait forever on a FIFO inside its root",
    items: ["D8", "F4", "I5"],
    tests: [
      t("test/executors/limits.test.ts", "refuses an HTTP hook's maxInputBytes of NaN"),
      t("test/executors/agent-hook.test.ts", "refuses limits that would remove a cap or make every call empty"),
      t("test/executors/agent-hook.test.ts", "refuses to read a FIFO, which could wait forever"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "c7c65d0",
    title: "An agent hook's `ok: false` with `impossible` let the stop go ahead",
    where: "src/executors/agent-hook.ts (it used the prompt hook's verdict reading)",
    repro:
      'a verifier answering {"ok": false, "reason": "tests fail", "impossible": true} on Stop: Completed, with a notice that the stop goes ahead; Claude Code\'s agent hooks have no `impossible`. The settings\' `model` field was also dropped for agent hooks',
    items: ["F1"],
    tests: [
      t("test/executors/agent-hook.test.ts", "blocks on ok:false even when the verifier adds impossible"),
      t("test/executors/agent-hook.test.ts", "asks for modelId when given"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "818b67f",
    title: "`redaction()` left secrets in an MCP result's structuredContent",
    where: "src/middleware/redaction.ts (the tool-output hook redacted `content` only)",
    repro:
      "a wrapped MCP tool answering structuredContent { email, token }: content was redacted, structuredContent came back raw, and a block strategy did not block it",
    items: ["G6", "I6"],
    tests: [t("test/middleware/redaction.test.ts", "redacts every data field of a tool result")],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "c3780a7",
    title: "A windowed budget stopped resetting after a call settled past its window",
    where: "src/middleware/budget.ts, the stores' `settle` (it recreated an expired counter with no TTL)",
    repro:
      "budget({ limit: 1000, windowMs: 86_400_000 }) and a call spanning the window's end: the counter came back without expiry, so the daily budget became a lifetime one (995 of 1000 used three days later). `settle` now takes the TTL `incr` takes",
    items: ["H2"],
    tests: [
      t("test/middleware/budget.test.ts", "keeps resetting when a call settles after its window ran out"),
      t("test/stores/redis.test.ts", "settle applies its TTL only when it creates the counter"),
      t("test/core/memory-store.test.ts", "settle applies its TTL only when it creates the counter"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "cfb2ece",
    title: "A rewritten AI SDK message could carry another message's file",
    where: "{{src/adapters/ai-sdk/prompt.ts|Positions line up only}}",
    repro:
      "one hook drops the first exchange, another redacts the last user message: the rewritten message was sent with the dropped message's image, and its own image was lost",
    items: ["A9"],
    tests: [t("test/adapters/ai-sdk.test.ts", "never gives a rewritten message another message's file")],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "a03a649",
    title: "A tool result with a BigInt or a cycle failed the turn",
    where:
      "src/agent/loop.ts (toolMessage), src/middleware/truncate-output.ts: JSON.stringify; now {{src/agent/content-text.ts|export const contentText}}",
    repro:
      "a tool returning { id: 12n } or an object that contains itself: the agent's turn failed (Do not know how to serialize a BigInt), and truncateOutput rejected the call however short it was",
    items: ["I4"],
    tests: [
      t("test/agent/content-text.test.ts", "does not fail the turn"),
      t("test/middleware/truncate-output.test.ts", "measures content with a BigInt or a cycle as the model reads it"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "b8578c9",
    title: "The phone detector scanned crafted digit runs 60 to 100 times slower than text",
    where: "{{src/middleware/detectors.ts|export const phone}}",
    repro:
      '1 MB of " +1(1234)" and 20 digits took 2.5 s to scan (groups of 1 to 4 digits split thousands of ways); redaction() runs synchronously, so a tool\'s output could stall the event loop. Now 1.6 times plain text',
    items: ["J3"],
    tests: [t("test/middleware/detectors.test.ts", "scan long runs of digits as fast as plain text")],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "6a8537d",
    title: "A time limit of years failed every run",
    where: "src/middleware/time-limit.ts (the start mark's TTL)",
    repro:
      "timeLimit({ maxSeconds: Number.MAX_SAFE_INTEGER }) or guards({ maxExecutionTime: 1e13 }) was accepted, then every run was Rejected: ttlMs must be a positive safe integer",
    items: ["C5"],
    tests: [t("test/middleware/guards.test.ts", "lets runs through rather than asking the store for a TTL past the safe integers")],
  },
  {
    kind: "gap",
    status: "fixed",
    fixedIn: "df6e511",
    title: "MemoryStore took a sweep interval of NaN, a negative or Infinity",
    where: "src/core/memory-store.ts (constructor)",
    repro:
      "new MemoryStore({ sweepIntervalMs: NaN }) swept the whole map on every write; Infinity never removed expired keys that were not read again",
    items: ["H5"],
    tests: [t("test/core/memory-store.test.ts", "refuses a sweep interval that would sweep on every write or never")],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "13eb7b1",
    title: "BackgroundQueue counted a job that is not a function as completed",
    where: "src/executors/queue.ts (push)",
    repro: 'queue.push("audit", 5) returned a promise and later counted one completed job; it now throws a TypeError naming the label',
    items: ["A12", "C4"],
    tests: [t("test/executors/queue.test.ts", "refuses a job that is not a function when it is pushed")],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "10fee69",
    title: "A malformed response from a hook made a stream hang and raised an unhandled rejection",
    where: "{{src/agent/stream/through-stack.ts|const malformed}}",
    repro:
      "a modelCall after hook answering Transform({ ...res, toolCalls: undefined }) on a streamed call: the reader waited forever (an agent with stream: true never finished its turn) and `done` rejected unhandled, where generate gives a failed turn",
    items: ["G4", "A7"],
    tests: [
      t(
        "test/agent/stream-lifecycle.test.ts",
        "ends with an error part and a Failed outcome, never hanging, when a hook answers a malformed response",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "10fee69",
    title: "A stream left its provider open, or hung on a check, when it ended early",
    where: "{{src/agent/stream/pump.ts|if (!exhausted)}}, src/agent/stream/parts.ts (untilAbort, closeQuietly), src/agent/stream/queue.ts",
    repro:
      "an error part or a throwing chunk transform left the provider's generator suspended (its finally never ran); an output check that hung kept `done` pending after the caller aborted; a provider whose return() answered synchronously turned a cancel into a TypeError; two pending next() calls on the parts lost the first",
    items: ["G4", "C2"],
    tests: [
      t(
        "test/agent/stream-lifecycle.test.ts",
        "closes the provider's stream when it sends an error part, and when a chunk transform throws",
      ),
      t("test/agent/stream-lifecycle.test.ts", "stops waiting for a check that hangs when the caller aborts, and closes the provider"),
      t("test/agent/stream-lifecycle.test.ts", "treats a provider whose return() answers synchronously like any other"),
      t("test/agent/stream-queue.test.ts", "answers next() calls made before any part in the order they were made"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "10fee69",
    title: "An output gate that could not answer in time let the text through",
    where: "{{src/agent/stream/hooks.ts|failMode: spec.failMode}}, src/agent/stream/pump.ts (the gate's timeoutMs)",
    repro:
      "outputGate({ timeoutMs: 100, check: () => never }): generate returned the unchecked text (the hook failed open, the default on modelCall), and a stream ignored the timeout and never finished; a gate now fails closed by default and its check is bounded on both paths",
    items: ["G1", "C1"],
    tests: [t("test/agent/stream-lifecycle.test.ts", "applies the gate's timeoutMs to its check and blocks")],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "671834e",
    title: "Hook-added context was lost, or reached the wrong prompt, after a rejected turn",
    where: "{{src/agent/context-queue.ts|rewind(mark: ContextMark): void}}, src/agent/session.ts",
    repro:
      "a rejected prompt drained the sessionStart context waiting for the first model request; a prompt rejected at the run gate left its own context to be sent with the next, unrelated prompt",
    items: ["I6"],
    tests: [
      t("test/agent/session-context.test.ts", "keeps sessionStart context for the first model request when an earlier prompt was rejected"),
      t("test/agent/session-context.test.ts", "drops the context of a prompt whose run was rejected"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "b5d5364",
    title: "A run hook's rewrite of the prompt was ignored",
    where: "{{src/agent/loop.ts|export const promptInMessages}} (used by sessions and sub-agents)",
    repro:
      'a run before-hook answering Transform({ ...input, prompt: "list the files" }): the model still received "delete everything", since the loop reads only messages',
    items: ["A10"],
    tests: [t("test/agent/session-context.test.ts", "sends the prompt a run hook rewrote")],
  },
  {
    kind: "gap",
    status: "fixed",
    fixedIn: "6d8aae9",
    title: "A sub-agent's maxSteps, tools and model were not checked",
    where: "src/agent/config.ts (resolveConfig)",
    repro:
      "subagents: [{ name, maxSteps: NaN }] let the sub-agent call its model without end (200 calls before the script aborted); -1 made it answer nothing; the same values on the root agent throw a TypeError",
    items: ["J1"],
    tests: [t("test/agent/caller-input.test.ts", "createAgent refuses a sub-agent's maxSteps of NaN or -1")],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "b5fb239",
    title: "A command hook exiting 1 on Notification or StopFailure counted as a failure",
    where: "{{src/executors/answer.ts|ignoresExitCode}}",
    repro:
      'commandHook({ event: "Notification" }) whose script exits 1: a hook failure was recorded and warned about, where Claude Code ignores the exit code on these events',
    items: ["D7"],
    tests: [t("test/executors/command.test.ts", "does not count exit 1 as a failure on Notification and StopFailure")],
  },
  {
    kind: "gap",
    status: "fixed",
    fixedIn: "c9891fa",
    title: "A project's untrusted settings were skipped without a word",
    where: "{{src/executors/settings.ts|untrustedFiles}}",
    repro:
      'fromClaudeSettings(["~/.claude/settings.json", ".claude/settings.json"]) as the README wrote it: the project\'s guard hooks were listed in `unused` but not run and nothing said so; the README now passes trustProjectSettings and a warning names each untrusted file',
    items: ["D11"],
    tests: [t("test/executors/settings.test.ts", "does not run a project's own .claude/settings.json until it is trusted, and says so")],
  },
  // Third audit round: the engine against R1–R14, and a second pass over the middleware.
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "ec1ec34",
    title: "A run without a signal let hooks and its operation go on after it answered",
    where: "{{src/core/frame.ts|export const ended}} (the outermost frame settles the run), src/core/chain.ts (whenOperationSettles)",
    repro:
      "an around that calls `void next()` and answers Replace: with no signal, the slow before inside it, the operation and an after hook all ran after the caller had its answer (with a signal they did not); after an abort, a late operation result still started after hooks",
    items: ["C2", "A5"],
    tests: [
      t("test/core/cancellation.test.ts", "starts nothing more once the run answered, with or without a signal"),
      t("test/core/cancellation.test.ts", "runs no after hook on an operation result that arrives after the run was aborted"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "ec1ec34",
    title: "A synchronous hook that blocked past its timeoutMs was accepted",
    where: "{{src/core/invoke.ts|A synchronous hook that blocked past its deadline}}",
    repro:
      "a before hook busy for 50 ms with timeoutMs: 10 answered Continue and the run Completed; the same hook answering through a promise was a timeout",
    items: ["C1"],
    tests: [t("test/core/cancellation.test.ts", "fails a synchronous hook that blocked past its timeoutMs")],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "aafe79c",
    title: "Observers could change the caller's outcome and each other's view",
    where: "{{src/core/stack.ts|Copies, frozen}}",
    repro:
      "an observer setting event.outcome._tag changed the outcome the caller held, and pushing to event.decisions changed what the next observer and the caller's Trace saw; with observers only, strict mode froze neither input nor output",
    items: ["A8", "H6"],
    tests: [
      t("test/core/stack.test.ts", "cannot change the caller's outcome, the trace, or what the next observer sees"),
      t("test/core/stack.test.ts", "sees a frozen input and output in strict mode when a point has observers only"),
      t("test/core/around.test.ts", "freezes an outcome it built itself in strict mode"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "b037799",
    title: "On a collecting gate, an around answering without next() dropped earlier vetoes",
    where: "{{src/core/around.ts|veto(reason: string): Step}}",
    repro:
      "stop gate with collect: an earlier veto, then an around answering Replace: the stop went ahead (Completed); an around answering Reject replaced the earlier reasons instead of joining them",
    items: ["B1", "A16"],
    tests: [t("test/core/actions.test.ts", "treats an around that answers without next() like a before")],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "994405f",
    title: "Registering a disabled hook switched off an enabled one of the same name on another point",
    where: "{{src/core/stack.ts|A name is enabled or disabled as a whole}}",
    repro:
      'a guard named "guard" on point a, then use("b", { name: "guard", disabled: true, … }): the guard on a stopped running, and nothing said so',
    items: ["A12"],
    tests: [t("test/core/stack.test.ts", "keeps one enabled state: registering it disabled where it is enabled elsewhere is refused")],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "2ebb2bb",
    title: "A retried attempt re-entered a recheck gate whose matcher no longer applied",
    where: "{{src/core/around.ts|forgetInnerRechecks}}",
    repro:
      "a recheck gate matched Bash(rm *); an around retried with `ls`: the gate, which matches only rm, was asked about `ls` from its stale approval of the first attempt",
    items: ["A10"],
    tests: [t("test/core/actions.test.ts", "forgets what it approved in an attempt an around retries")],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "00bdf99",
    title: "A toolCall cache never hit, and three more middleware slips",
    where: "src/middleware/cache.ts (the key held the call id), token-budget.ts, fallback.ts, tracing.ts",
    repro:
      "three identical WebSearch calls with ids toolu_1..3 ran the tool three times; tokenBudget counted a step reporting 1e16 tokens as nothing; fallback's when() saw ModelStreamError instead of the provider's 400 on streams; a response without usage left its span unended",
    items: ["H1", "K3", "E9"],
    tests: [
      t("test/middleware/cache.test.ts", "answers a repeated tool call with a new call id"),
      t("test/middleware/guards.test.ts", "counts usage past the safe integers"),
      t("test/middleware/fallback.test.ts", "gives when() the provider's own error on a stream too"),
      t("test/middleware/tracing.test.ts", "ends a point's span even when the outcome cannot be read as usual"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "4f761af",
    title: "The audit log kept metadata keys and numbers unscrubbed",
    where: "{{src/middleware/audit.ts|const scrubDeep}}",
    repro:
      'metadata { user: { "alice@example.com": "admin", card: 4111111111111111 } } reached the log with the email key and the card number as they were',
    items: ["I6"],
    tests: [t("test/middleware/audit.test.ts", "scrubs metadata keys and numbers too")],
  },
  {
    kind: "gap",
    status: "fixed",
    fixedIn: "1c07430",
    title: "A failed or aborted turn reported no usage",
    where: "src/agent/session.ts, {{src/agent/env.ts|readonly spent}}",
    repro:
      "a turn whose second model call failed reported steps 0 and usage 0/0 after a step that cost 110 tokens; a sub-agent's 10,000 tokens never reached the turn's usage",
    items: ["K1"],
    tests: [
      t("test/agent/subagent.test.ts", "reports the steps and tokens already spent when the turn fails"),
      t("test/agent/subagent.test.ts", "counts a sub-agent's model calls in the turn's usage"),
    ],
  },
  {
    kind: "gap",
    status: "fixed",
    fixedIn: "d2e5fe1",
    title: "Observers missed runs refused for depth, and the trace missed recheck calls that said Continue",
    where: "{{src/core/stack.ts|Refused, and observers still see it}}, src/core/chain.ts (rechecked)",
    repro:
      "a run refused with RecursionLimitError never reached observers (one refused for an aborted signal did); a recheck gate called twice left one trace entry",
    items: ["K1", "A14"],
    tests: [
      t("test/core/stack.test.ts", "see a run refused for nesting too deep"),
      t("test/core/actions.test.ts", "records each recheck call in the trace"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "04a07c5",
    title: "A modelCall rate limit counted one admission for any number of retried attempts",
    where: '{{src/middleware/rate-limit.ts|point === "modelCall" ? Priority.guard + 25}}',
    repro:
      'rateLimit({ point: "modelCall", limit: 2 }) with retry({ attempts: 3 }) and a fallback model: 8 provider calls were made in a minute, since the limit sat outside retry and fallback',
    items: ["E9", "H1"],
    tests: [t("test/middleware/rate-limit.test.ts", "counts every attempt a retry makes on modelCall")],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "9367c58",
    title: "On the around-only path, what a hook did to its context reached the engine",
    where: "{{src/core/around-only.ts|const ctx = new ScopedContext(run, input, undefined, hook);}}",
    repro:
      "the lean layer (f869321) was also the hook's ctx: ctx.status = 200 made a clean next() a misuse, ctx.last = 1234 made the run resolve to 1234, ctx.index = 1 skipped an inner guard, Object.freeze(ctx) made stack.run reject with an unhandled rejection; found by an audit of the new path before any release",
    items: ["A8", "B1"],
    tests: [t("test/core/around-only.test.ts", "does exactly what the general path does, for any mix of hook answers")],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "9367c58",
    title: "A kept next() called from inside its own call ran the operation twice",
    where: "{{src/core/around.ts|this.pending = inFlight;}}, {{src/core/around-only.ts|this.state |= pending;}}",
    repro:
      "A keeps its next and returns next(); C, inside it, calls A's kept next() once and returns its own next(): the call passed the pending check (set only after the inside returned), the operation ran twice and no misuse was reported",
    items: ["A3"],
    tests: [t("test/core/around-only.test.ts", "is refused as concurrent while the first call still runs")],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "9367c58",
    title: "The operation's context, used late during a retry, named an around hook",
    where: '{{src/core/invoke.ts|if (phase !== "around") run.current = hook;}}',
    repro:
      "a retry around an async hook; the first attempt's operation called ctx.addContext 5 ms later, while the hook decided again: the text was attributed to that around hook (invoke set run.current for around hooks, which have a context of their own, and never reset it)",
    items: ["K1"],
    tests: [t("test/core/around-only.test.ts", "names no hook even when used after an around hook ran again")],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "389a364",
    title: "A streamed JWT leaked its dots, and a long one most of its payload",
    where: "{{src/middleware/detectors.ts|partial: /(?<![A-Za-z0-9_-])eyJ}}",
    repro:
      "Bearer + a 201-character JWT, one character at a time: whole text gave [REDACTED:api_key], the stream [REDACTED:secret].[REDACTED:secret].[REDACTED:secret] (a JWT is recognisable only at its signature, past the 48-character window); with a 1.6 KB payload 907 characters went out in the clear and an api_key block never blocked",
    items: ["G3"],
    tests: [
      t("test/middleware/stream-redactor.test.ts", "holds a JWT from its eyJ until its signature arrives, however long its payload"),
      t("test/middleware/stream-redactor.test.ts", "releases a JWT longer than maxHold redacted, none of it in the clear"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "389a364",
    title: "The stream scanned its look-behind context as new text, so a token's tail looked like a token",
    where: "{{src/middleware/stream-redactor.ts|for (const d of scan(text, detectors, shift))}}",
    repro:
      "k=Zm9vYmFyQmF6cXV4MTIz/4111 1111 1111 1111 and 130 spaces, cut at 146: whole text redacted the card, the stream gave k=Zm9vYmFyQmF6cXV4[REDACTED:secret] 1111 1111 1111 (the look-behinds saw nothing at the start of the scanned tail, and the spurious match hid the card); -ghp_… and long emails were redacted in part where the whole text left them",
    items: ["G3"],
    tests: [
      t(
        "test/middleware/stream-redactor.test.ts",
        "scans held text with what it released as look-behind context: a token's tail is not a new token",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "389a364",
    title: "A stream blocked on part of a match",
    where: "{{src/middleware/stream-redactor.ts|Only matches that are whole (released now) decide a block}}",
    repro:
      "phone: block, 4111 1111 1111 1111 sent as 4111 1111 1 and 111 1111: whole text redacted a card, the stream blocked as a phone number; the same with an IP address followed by .5 and an email followed by x-y",
    items: ["G3"],
    tests: [
      t(
        "test/middleware/stream-redactor.test.ts",
        "decides a block only on whole matches: part of a card is no phone number, part of an address no shorter one",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "389a364",
    title: "A match released past maxHold left the rest of its token in the clear",
    where: "{{src/middleware/stream-redactor.ts|A match released in part (it outgrew maxHold) goes on while its token does}}",
    repro:
      "maxHold 128, a 173-character sk-ant- key cut at 172: the stream gave [REDACTED:api_key]hJ0aEAA (the rest was to be found as a new match, which no prefixed key pattern does)",
    items: ["G3"],
    tests: [
      t(
        "test/middleware/stream-redactor.test.ts",
        "redacts the rest of a match it had to release early (past maxHold) while its token goes on",
      ),
      t("test/middleware/stream-redactor.test.ts", "redacts only the token it released early: the words after it stream as they are"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "389a364",
    title: "The email window was shorter than the longest address recognisable in it",
    where: "{{src/middleware/detectors.ts|window: 132}}",
    repro:
      "a 63-character local part at a 63-character domain label, one character at a time: the stream gave j[REDACTED:email] (up to 131 characters arrive before an address matches; the window was 128)",
    items: ["G3"],
    tests: [t("test/middleware/stream-redactor.test.ts", "recognises the longest email its window allows, sent one character at a time")],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "389a364",
    title: "Whole-text redaction left the part of a match that overlapped an earlier one in the clear",
    where: "{{src/middleware/detectors.ts|Overlapping matches are merged into one span}}",
    repro:
      "/home/alice/x9Kq2LmP7zR4/bob.smith@example.com gave [REDACTED:secret].smith@example.com, and a path ending in a card number left three of its four groups (the leftmost match won, the rest was dropped); a blocked kind swallowed by another was not blocked",
    items: ["G6"],
    tests: [
      t(
        "test/middleware/detectors.test.ts",
        "merge overlapping matches into one span, so no part of either is left out, and name every kind in it",
      ),
      t(
        "test/middleware/redactor.test.ts",
        "blocks a span when any kind merged into it is blocked: an API key that is also a high-entropy secret",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "389a364",
    title: "A card number after a stray digit was not found",
    where: "{{src/middleware/detectors.ts|else re.lastIndex = step(text, m.index);}}",
    repro:
      "call 5 4111 1111 1111 1111: the 17-digit candidate from the 5 failed Luhn and the scan went on after it, so the card was left in the clear",
    items: ["G6"],
    tests: [
      t("test/middleware/detectors.test.ts", "try again one character on after a rejected candidate: a card after a stray digit is found"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "97400ef",
    title: "A subject function that threw left the subject undefined, and hooks matching by name were skipped without a word",
    where:
      "{{src/core/stack.ts|return (cache.unknown ??= compileUnknownSubject(}}, {{src/core/unknown-subject.ts|export const reportUnknownSubject}}",
    repro:
      'toolCall\'s subject is (c) => c.name; stack.run("toolCall", null, op) with a deny hook matching Bash(rm *): the subject function threw, the chain for subject undefined left the deny hook out, the operation ran and no failure was reported',
    items: ["B3", "B4"],
    tests: [
      t("test/core/hostile.test.ts", "applies a hook that fails closed, its condition unchecked: a deny rule still sees the call"),
      t(
        "test/core/hostile.test.ts",
        "reports the failed match of every hook that needed the subject, on every run, and leaves out those that fail open",
      ),
    ],
  },
  {
    kind: "gap",
    status: "fixed",
    fixedIn: "d708ae9",
    title: "The AI SDK stream dropped the reason its consumer cancelled with",
    where: "{{src/adapters/ai-sdk/stream.ts|onCancel?.(reason);}}",
    repro:
      'reader.cancel(new Error("the user closed the tab")) on a wrapped model\'s stream: the provider\'s abortSignal.reason was "stream consumer stopped reading", whatever the reason',
    items: ["G4"],
    tests: [t("test/adapters/ai-sdk.test.ts", "ends the provider's stream with the reason the consumer cancelled with")],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "ddde222",
    title: "A JWT cut just past the dot before its payload went out in the clear up to the dot",
    where: "{{src/middleware/detectors.ts|(?:\\.(?:e(?:y(?:J}}",
    repro:
      'a JWT with a 208-character header, one character at a time: when the held text ended in ".e" or ".ey" the unfinished-JWT pattern (which wanted a whole eyJ after the dot) found nothing, and the header went out; an api_key block did not block (found by a review of 389a364)',
    items: ["G3"],
    tests: [
      t(
        "test/middleware/stream-redactor.test.ts",
        "holds a JWT whose chunk ends at the dot before its payload, or one or two letters into it",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "ddde222",
    title: "A stream let out an email with many domain labels, and a long token whose start alone looked harmless",
    where: "{{src/middleware/detectors.ts|window: 132, partial: new RegExp(}}",
    repro:
      "x@ and three 63-digit labels .com: not recognisable before its TLD, 200 characters in, past the 132-character window, so it went out in the clear; 140 a then 700 random characters: a secret judged whole, but its start failed the entropy check while the rest had not arrived (found by a review of 389a364)",
    items: ["G3"],
    tests: [
      t(
        "test/middleware/stream-redactor.test.ts",
        "holds an email whose domain has many labels until it is whole, and a long token until it ends",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "ddde222",
    title: "A held JWT released past maxHold dropped the kinds it overlapped, so a blocked one did not block",
    where: "{{src/middleware/stream-redactor.ts|with any match it overlaps (their}}",
    repro:
      "a 4.1 K JWT whose signature ends in -415-555-0100, phone: block: the whole text blocked, the stream gave Bearer [REDACTED:api_key] ok (found by a review of 389a364)",
    items: ["G3"],
    tests: [
      t(
        "test/middleware/stream-redactor.test.ts",
        "keeps the kinds a held JWT overlapped when it releases it past maxHold: a blocked one still blocks",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "ddde222",
    title: "A stream took an eyJ inside a word for an unfinished JWT",
    where: "{{src/middleware/stream-redactor.ts|const partial = unfinishedMatch(text, detectors, shift + lead);}}",
    repro:
      "a long dotted identifier xeyJabc….eyJdef….ghi with the cut right before an eyJ: the unfinished-JWT pattern ran on the held text alone, so its look-behind did not see the x; past maxHold the identifier was redacted and an api_key block blocked, where the whole text found nothing (found by a review of 389a364)",
    items: ["G3"],
    tests: [
      t(
        "test/middleware/stream-redactor.test.ts",
        "sees released text as look-behind context when it looks for an unfinished match: an eyJ inside a word is no JWT",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "ddde222",
    title: "A unicode pattern with validate looped forever on an emoji",
    where: "{{src/middleware/detectors.ts|const step = (text: string, at: number): number => {}}",
    repro:
      'scan("see 😀12 ok", [pattern("emo", /\\p{Extended_Pictographic}\\d+/u, { validate: (m) => m.length > 10 })]) never returned: the retry one code unit on landed inside the surrogate pair, and a /u regex steps back to its start (found by a review of 389a364, which introduced the retry)',
    items: ["I3"],
    tests: [
      t(
        "test/middleware/detectors.test.ts",
        "try again past a whole character after a rejected candidate of a unicode pattern: no endless loop on an emoji",
      ),
    ],
  },
  {
    kind: "gap",
    status: "fixed",
    fixedIn: "0387b0f",
    title: "A run with a caller signal or a deadline made an AbortSignal on every run, and a hook with its own timeoutMs one on every call",
    where: "{{src/core/run-signal.ts|export class RunSignal}}, {{src/core/invoke.ts|const invokeTimed = (}}",
    repro:
      "stack.run(point, input, op, { signal }) with one around hook took 6,254 ns against 225 without options (tsc build): an AbortSignal takes about 2 µs to make on Node 20, and two abort listeners were added and removed; a sync before hook with timeoutMs cost 2,074 ns a run (benchmarks/signal.bench.ts). Now the signal is made when ctx.signal is read, and the run listens to its caller's signal itself (fixed in 0387b0f, 888f036 and 1c6043d)",
    items: ["C2"],
    tests: [
      t("test/core/run-signal.test.ts", "is not made when no hook and not the operation read it"),
      t("test/core/run-signal.test.ts", "is not made when the hook does not read it, sync or async, with or without a caller signal"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "888f036",
    title: "0387b0f handed providers the caller's own signal, and a lookalike's missing reason as the abort's cause",
    where: "{{src/adapters/ai-sdk.ts|const signal = ctx.signal === neverAborted}}, {{src/core/signal.ts|export const abortReason = }}",
    repro:
      "introduced and fixed in this session (found by an audit of 0387b0f): with callerSignalOf, wrapModel and aiSdkMiddleware gave the provider the caller's signal when the run had no deadline, so 20 prompts of a session whose provider never removes its abort listener left 20 listeners on the session's signal, and a lookalike signal reached providers that combine signals with AbortSignal.any, which never sees it abort; a lookalike aborting without a reason gave RunAbortedError(cause undefined) where a native controller had given an AbortError",
    items: ["C2"],
    tests: [
      t(
        "test/agent/wrappers.test.ts",
        "gives the provider a signal of the run's own, so what the provider leaves listening goes with the run",
      ),
      t(
        "test/adapters/ai-sdk.test.ts",
        "hands the provider a signal of the run's own, so what the provider leaves listening goes with the run",
      ),
      t("test/core/run-signal.test.ts", "aborts the run with an AbortError, the very reason its own signal carries"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "375a026",
    title: "A lookalike caller signal whose removeEventListener or reason getter throws left the run never settling",
    where: "{{src/core/stack.ts|stopListening(this.caller, this.listener);}}, {{src/core/stack.ts|a lookalike whose reason throws}}",
    repro:
      "stack.run(point, x, async op, { signal: { aborted: false, addEventListener() {}, removeEventListener() { throw new Error() } } }) never settled and raised an unhandled rejection; a lookalike whose reason getter throws did the same when it aborted mid-run (found by an audit of 0387b0f; both older than this session). After the first fix, the listener the lookalike kept aborted a completed run's signal when the caller aborted later (found by a second audit, fixed in eb9e460)",
    items: ["C2"],
    tests: [
      t("test/core/run-signal.test.ts", "lets the run settle when its removeEventListener throws"),
      t(
        "test/core/run-signal.test.ts",
        "settles the run as aborted, with what its reason getter threw, when it aborts while the run goes on",
      ),
      t(
        "test/core/run-signal.test.ts",
        "does not abort a settled run's signal when its listener, which removeEventListener would not let go of, fires later",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "375a026",
    title: "An agent turn aborted through a lone lookalike signal ended as failed",
    where: "{{src/agent/loop.ts|throwIfAborted(env.signal);}}",
    repro:
      "session.prompt(text, { signal: lookalike }) aborted while the model answered: the loop called signal.throwIfAborted(), which the lookalike does not have, so the turn failed with a TypeError instead of ending as aborted (found by an audit of 0387b0f; older than this session)",
    items: ["C2"],
    tests: [
      t(
        "test/agent/caller-input.test.ts",
        "ends the turn as aborted when a lone lookalike signal (no throwIfAborted) aborts while the model answers",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "eb9e460",
    title: "A sync hook that aborted the caller's signal left the later sync hooks of its loop running on a settled run",
    where: "{{src/core/chain.ts|aborted by a hook before this one (R7)}}, {{src/core/unwind.ts|aborted by a hook after this one (R7)}}",
    repro:
      "two sync before hooks, the first calls controller.abort(): the run settled as Failed(RunAbortedError) and the second hook still ran (its side effects for a call that never happens); the same with after hooks; the async path already stopped (found by a second audit; older than this session). The first fix checked at every hook of the way out, not only before starting one, and the general path then told the outermost around hook Failed where the lean path said Completed (found by the around-only parity property, fixed in b4c7bc1)",
    items: ["C2"],
    tests: [
      t("test/core/cancellation.test.ts", "starts no later sync hook, before or after, once a sync hook aborted the caller's signal"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "ca3905a",
    title: "After a hook aborted the run, the next hook's condition was still tested and recheck gates still ran again",
    where:
      "{{src/core/chain.ts|more, not even a hook's condition (R7).}}, {{src/core/chain.ts|a hook inside, or the caller, aborted the run (R7)}}",
    repro:
      "a sync before hook calls controller.abort(): the next hook's match function still ran, and its throw was reported as a hook failure of a settled run; a recheck: true gate ran its before again on the settled run when a hook inside it aborted and transformed the input, and with two such gates the second started after the caller aborted while the first re-decided (found by a review of this session's diff; the eb9e460 fix had missed both)",
    items: ["C2", "A10"],
    tests: [
      t("test/core/cancellation.test.ts", "tests no later hook's condition once a sync hook aborted the caller's signal"),
      t("test/core/cancellation.test.ts", "runs no recheck gate again once a hook inside it aborted the caller's signal"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "eb9e460",
    title: "A timed hook that aborted its caller's signal kept its timer after the run settled",
    where: "{{src/core/invoke.ts|caller's signal before it answered): no timer may outlive a run (R7).}}",
    repro:
      "a before hook with timeoutMs: 10_000 that calls controller.abort() and returns a promise: the run settled as aborted, and the hook's timer stayed for 10 s, holding the process open (found by a second audit; older than this session)",
    items: ["C4"],
    tests: [
      t(
        "test/core/cancellation.test.ts",
        "leaves no timer behind when a timed hook aborts the caller's signal and then answers with a promise",
      ),
    ],
  },
  {
    kind: "gap",
    status: "fixed",
    fixedIn: "b4c7bc1",
    title: "A run with before/after hooks allocated 40 bytes more in some processes than in others",
    where: "{{src/core/stack.ts|const reportUnknown = }}, {{src/core/stack.ts|const finishLater = }}",
    repro:
      "the memory suite read 584 bytes a run for 20 before/after hooks in some runs and 624 in others, on the same code: execute held a closure over run for its unknown-subject branch, and V8 allocates such a function's context on every call unless the optimiser drops it; settle, passThrough and handOn had the same shape (the M2 limit is hand-written (a)'s 288 plus one RunContext, 296 or 297 as measured)",
    items: ["B3"],
    tests: [t("test/core/hostile.test.ts", "applies a hook that fails closed, its condition unchecked: a deny rule still sees the call")],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "ae66e91",
    title: "A lookalike signal whose removeEventListener throws broke an agent turn's cleanup, and sleep's timer",
    where: "{{src/core/signal.ts|export const stopListening = }}",
    repro:
      "agent.session({ signal }).prompt(text, { signal }) with lookalikes whose removeEventListener throws: the turn threw from its dispose instead of answering; sleep(5, signal) threw from its timer (found while re-reading this session's fix for the guarded run, which had the same fault; older than this session)",
    items: ["C2"],
    tests: [
      t(
        "test/agent/caller-input.test.ts",
        "answers the prompt when both lookalikes throw from removeEventListener, which only keeps their listeners",
      ),
      t("test/agent/caller-input.test.ts", "still resolves when a lookalike signal's removeEventListener throws"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "709ab6e",
    title:
      "A timed around hook that failed closed left its operation running: the caller was told Rejected while the tool finished its side effect",
    where: "{{src/core/run-context.ts|  end(outcome: Outcome}}, {{src/core/run-context.ts|  watchable(): RunSignal | undefined {}}",
    repro:
      "an around hook with timeoutMs: 50 around a tool that deploys after 500 ms: the caller got Rejected at 53 ms, and the tool deployed at 503 ms with signal.aborted false; through wrapMcpClient the server's work finished and no notifications/cancelled was sent (found by an audit helper)",
    items: ["C4", "C2"],
    tests: [
      t(
        "test/core/cancellation.test.ts",
        "aborts the operation's signal when an around hook's timeout settles the run while the operation still runs",
      ),
      t(
        "test/core/cancellation.test.ts",
        "aborts the operation's signal when a plain around hook answers without waiting for next(), in a run with a signal",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "cb82e27",
    title:
      'ctx.state("session") of a session named none was the part every sessionless run shares, and a session id with a colon reached another session\'s keys',
    where: '{{src/core/run-context.ts|state(scope: "session" | "global" = "session")}}',
    repro:
      'two runs without a sessionId counted 1 then 2 on ctx.state().incr, and a session named "none" got 3; session "alice:prompts" read alice\'s prompts:today (found by an audit helper; runs without a session still share one part, now apart from every session\'s, since R14 keeps state across calls: e4ba040)',
    items: ["H6"],
    tests: [
      t("test/core/stack.test.ts", "keeps each session's state apart, even when a session's id holds the store's separator"),
      t("test/core/stack.test.ts", "keeps the state runs without a session share apart from every session's, one named none included"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "cb82e27",
    title: "Default run ids repeated across processes started as the same pid, and a resumed session reused its turns' run ids",
    where:
      "{{src/core/run-context.ts|const processTag =}}, {{src/agent/session.ts|const runIdOf = (session: string, what: string | number): string =>}}",
    repro:
      "two processes as pid 12 (unshare --pid) sharing a store: the second's first call was refused by callLimit (\"at most 1 time in this run\"), its run id run-12-1 being the first's; a session resumed with the same sessionId started at conversation-42#1 and inherited that turn's tokenBudget and callLimit counts for 24 h and 7 days (found by an audit helper; the session half fixed in 6518f8b)",
    items: ["H4"],
    tests: [
      t("test/core/stack.test.ts", "makes run and call ids that another process with the same pid does not repeat"),
      t(
        "test/agent/session-context.test.ts",
        "gives every turn a run id of its own, also in a session resumed with the same id, so run-scoped guards start afresh",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "6d89b9b",
    title: "A decoy key in a tool call's input decided toolPolicy's allow and deny rules",
    where: "{{src/agent/points.ts|export const toolDetails =}}, {{src/middleware/tool-rules.ts|toolDetails}}",
    repro:
      'allow Read(src/**) let Read {file_path: "/etc/shadow", command: "src/x"} through, and deny Read(/etc/**) missed {file_path: "/etc/shadow", cmd: "notes.txt"}: the detail was the first string among command, cmd, file_path, ... whatever the tool (found by an audit helper; 619426e put back a Glob pattern that names files outside its path, which 6d89b9b had dropped)',
    items: ["J2", "B2"],
    tests: [
      t("test/middleware/tool-policy.test.ts", "does not let a decoy command key allow a Read outside the allowed paths"),
      t("test/middleware/tool-policy.test.ts", "does not let a decoy cmd key hide a Read from a deny rule"),
      t("test/middleware/tool-policy.test.ts", "denies a Glob whose pattern reaches into a denied directory, with or without a path"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "0efd81d",
    title:
      "rateLimit and callLimit on toolCall counted one admission for several retried attempts, and counted calls that never reached the tool",
    where: "{{src/middleware/rate-limit.ts|hooks: { toolCall: [check, count(}}",
    repro:
      'retry({ point: "toolCall" }) around a failing WebFetch under rateLimit 2 per 60 s: 6 executions in one window; two calls the approver denied used up callLimit 2, and the third, approved, was refused (found by an audit helper)',
    items: ["H1"],
    tests: [
      t("test/middleware/rate-limit.test.ts", "counts every attempt a retry makes on toolCall, and a refused attempt ends the retries"),
      t("test/middleware/rate-limit.test.ts", "does not count a call that approval refuses before it reaches the tool"),
    ],
  },
  {
    kind: "gap",
    status: "fixed",
    fixedIn: "5ae2b22",
    title: "Wrong-typed middleware and store options were accepted at construction",
    where: "{{src/middleware/options.ts|export const stringOption =}}, {{src/middleware/scope.ts|export const tenantOption =}}",
    repro:
      'tenantKey: {} was accepted by budget, rateLimit, callLimit and cache; budget({ unit: "cost", price: {} }) failed every call later; audit({ metadata: "tenant" }) iterated characters; new RedisStore({ timeoutMs: NaN }) threw a RangeError naming neither the store nor the field (found by an audit helper)',
    items: ["J1"],
    tests: [
      t("test/middleware/audit.test.ts", "refuses metadata that is not a list of field names, naming the field"),
      t(
        "test/stores/redis.test.ts",
        "refuses a timeoutMs or keyPrefix of the wrong type at construction, with a TypeError naming RedisStore and the field",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "9c8642a",
    title:
      "Command hooks: on exit 2 a JSON reason replaced stderr when the JSON made no blocking decision; stdout starting with { that is not JSON failed the hook",
    where: '{{src/executors/protocol.ts|decision: "block"}}, {{src/executors/answer.ts|then a key or}}',
    repro:
      'PreToolUse exit 2 with {"reason":"audit note"} on stdout and "rm is not allowed here" on stderr blocked with "audit note"; UserPromptSubmit printing "{WIP} current branch" blocked the prompt as invalid JSON (the reference reads it as plain text; 457b20d) (found by an audit helper)',
    items: ["D7", "D8"],
    tests: [
      t("test/executors/protocol.test.ts", "blocks with stderr when the JSON carries a reason but makes no blocking decision"),
      t("test/executors/answer.test.ts", "reads stdout that starts with { but is not JSON as plain text"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "1623a61",
    title: 'SessionStart could be stopped by exit 2 or decision: "block"; a PreCompact hook could never block through try and claude-hook',
    where:
      "{{src/executors/protocol.ts|counts only on events whose decision control lists it}}, {{src/executors/bridge.ts|const refusalReason = }}",
    repro:
      'SessionStart printing {"decision":"block"} with exit 0 answered continue: false, though the reference gives SessionStart no decision control and shows its exit 2 stderr to the user only; PreCompact with exit 2 or decision: block answered decision none, since in process compaction observes (5a80aa5) (found by an audit helper)',
    items: ["D7"],
    tests: [
      t("test/executors/protocol.test.ts", "decision: block counts only on events whose decision control lists it (not SessionStart)"),
      t("test/executors/bridge.test.ts", "answers a hook's block (exit 2, decision: block, or Reject) as a block"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "17214cf",
    title:
      "Settings matchers shaped like Name(...) were read as conditions; StopFailure, SessionStart, SessionEnd and Notification values were rewritten; an explicit shell was ignored",
    where: "{{src/executors/settings-rules.ts|export const claudeMatch = }}, {{src/executors/process.ts|const shells =}}",
    repro:
      'matcher Notebook(Edit|Read) never matched NotebookEdit; StopFailure matchers authentication_failed, billing_error, server_error never fired and hooks read error=unknown (1656d35); fork became resume and auth_success info (161265a); shell: "bash" still ran /bin/sh, so a [[ ]] guard let rm -rf / through (f467fcd) (found by an audit helper)',
    items: ["J2", "D1"],
    tests: [
      t(
        "test/executors/settings.test.ts",
        "reads a matcher shaped like Name(...) as Claude Code does, as an unanchored regular expression, not as a condition",
      ),
      t(
        "test/executors/event-json.test.ts",
        "keeps the incoming error as the matcher subject and on stdin, and passes error_details through as given",
      ),
      t("test/executors/command.test.ts", 'runs shell form with bash -c when shell is "bash"'),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "1229574",
    title: "A streamed call waited on a provider whose stream start ignored the abort",
    where: "{{src/agent/stream/pump.ts|A provider whose start ignores the signal cannot hold the run}}",
    repro:
      "the caller aborts at 50 ms while the provider's doStream resolves at 1.5 s: the parts ended at 51 ms but the outcome and after hooks waited until 1503 ms (forever if the start never resolves), with pump's listeners attached (found by an audit helper)",
    items: ["G4", "C2"],
    tests: [
      t(
        "test/agent/stream/pump.test.ts",
        "settles the call when the caller aborts while the provider's stream start ignores the signal, and closes the stream that arrives late",
      ),
      t("test/adapters/ai-sdk/stream.test.ts", "cancels the provider's stream when it opens only after the caller aborted"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "f884538",
    title: "A stream retried by an around hook ended with the first attempt's partial text and a plain finish",
    where: "{{src/agent/stream/errors.ts|export class StreamDivergedError}}",
    repro:
      'an around hook that retries a streamed call whose second answer differs: the consumer got ["Hel", finish] while the outcome\'s text was "Goodbye" (found by an audit helper)',
    items: ["G2", "G5"],
    tests: [
      t(
        "test/agent/stream/through-stack.test.ts",
        "ends the consumer's stream with a StreamDivergedError, not a finish, when a retry's answer does not continue the text already released",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "c4b7306",
    title: "AI SDK streams let a provider-executed tool's result out before its call, or without it when a gate blocked",
    where: "{{src/agent/stream/pump.ts|const id = linkedCall(part);}}",
    repro:
      "a provider streaming tool-call, tool-result, text-delta came out as tool-result, text-delta, tool-call; with an output gate blocking, the consumer got the tool-result (a search hit holding an address) and no tool-call (found by an audit helper)",
    items: ["G5", "G1"],
    tests: [
      t("test/adapters/ai-sdk/stream.test.ts", "streams a provider-executed tool's result right after its call, never before it"),
      t(
        "test/adapters/ai-sdk/stream.test.ts",
        "drops a provider-executed tool's result with its call when an output gate blocks the answer",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "c4fab10",
    title: "AI SDK streams without usage totals counted as free",
    where: "{{src/adapters/ai-sdk/stream.ts|The totals the provider reported}}",
    repro:
      "a provider whose stream reports no totals: after hooks saw usage 0/0 not flagged as estimated (generate estimated 12/17 and flagged it), so budgets and metrics counted streamed calls as free (found by an audit helper)",
    items: ["H1", "K1"],
    tests: [
      t(
        "test/adapters/ai-sdk/stream.test.ts",
        "shows after hooks estimated usage, flagged as estimated, when the provider's stream reports no totals, and gives the SDK the provider's own usage",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "5ac322e",
    title:
      "Hook-added context was repeated on every retry; a step hook failing closed never reached the error point; a failed turn lost the sessionStart context",
    where: '{{src/agent/context-queue.ts|export class AttemptContext}}, {{src/agent/loop.ts|where: "loop", error, attempt}}',
    repro:
      'retry() outside a modelCall hook that adds "Policy: be polite": attempt 2 sent it twice; a step hook failing closed ended the turn with an AgentRunError claiming the error point had decided, though no error hook heard of it (559fb2c); a turn that failed after its first request left the next turn without the sessionStart context (8e269d6) (found by an audit helper)',
    items: ["I6", "K1"],
    tests: [
      t(
        "test/adapters/ai-sdk.test.ts",
        "sends each hook's context once when retry() runs the call again, as the hook gave it for that attempt",
      ),
      t("test/agent/errors.test.ts", "sends a step hook that fails closed through the error point, which may retry the step"),
      t(
        "test/agent/session-context.test.ts",
        "keeps sessionStart context for the next turn when a turn failed, since its answer never reached the conversation",
      ),
    ],
  },
  // Found by four audits (src/core against R1–R14; stores and observability; the adapters; the docs) and by the reviews of their fixes (8d83b48..2565219).
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "b0e3cf8",
    title: "tracing could put a run's hook spans under another run's span when concurrent runs shared one input object",
    where:
      "{{src/middleware/tracing.ts|const open = new Map<string, OpenSpan[]>();}} (keyed by the run's callId; it was a WeakMap keyed by the input object)",
    repro:
      "two concurrent stack.run(\"toolCall\", call, …) with one frozen call object, one run's hook taking 20 ms and the other's 1 ms: spans were matched to runs by the input object, first in first out, so the slow run's hook span could go under the fast run's point span and the other way round (the stores audit suggested the callId key)",
    items: ["A15", "K2"],
    tests: [t("test/middleware/tracing.test.ts", "keeps concurrent runs apart when they share one input object")],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "4a9bf7f",
    title:
      "A run or a step the error point retried lost hook-added context: what its failed attempt took, and what the error hook added while deciding",
    where:
      "{{src/agent/context-queue.ts|rewindKeeping(mark: ContextMark, kept: ContextMark): void {}}, {{src/agent/session.ts|this.pending.rewindKeeping(beforeRun, deciding);}}, {{src/agent/loop.ts|env.pending.rewindKeeping(mark, deciding);}}",
    repro:
      "an error hook answering retry for a run whose answer was lost: the retry's model request had neither the sessionStart nor the userPrompt hook's context (fixed in 7e1ffa6). That fix rewound the queue after the error point decided, so an error hook's ctx.addContext(\"The previous attempt failed: answer lost. Keep it short.\") was missing from the retried request, as the step retry's older rewind dropped it too (found by a review of 7e1ffa6)",
    items: ["I6"],
    tests: [
      t(
        "test/agent/session-context.test.ts",
        "hands the context a failed run used to its retry when the error point retries the whole run",
      ),
      t("test/agent/errors.test.ts", "gives a retried step the context the error hook added while deciding to retry it"),
    ],
  },
  {
    kind: "gap",
    status: "fixed",
    fixedIn: "4eb6ea3",
    title:
      "The agent's event types named fewer SessionStart sources, SessionEnd reasons and Notification types than the bridge passes at run time",
    where:
      '{{src/agent/types.ts|export type SessionSource = }}, {{src/executors/bridge-event.ts|source: e.source ?? "startup"}} (the bridge\'s three casts are gone)',
    repro:
      'Claude Code sends SessionStart source fork, SessionEnd reason resume and Notification types such as auth_success, elicitation_dialog and agent_needs_input; the bridge passed them on through casts, so a hook switching over the typed "startup" | "resume" | "clear" | "compact" was told fork could not happen. The types now name the documented values and take any other string',
    items: ["J2"],
    tests: [
      t("test/agent/types.test-d.ts", "name Claude Code's documented values and take the ones it adds later, as the bridge passes them on"),
    ],
  },
  {
    kind: "gap",
    status: "fixed",
    fixedIn: "51a369c",
    title: "A tenantKey or an audit metadata key of spaces alone was accepted",
    where: '{{src/middleware/options.ts|value !== undefined && (typeof value !== "string" || value.trim() === "")}} (stringOption)',
    repro:
      'budget({ limit: 5, scope: "tenant", tenantKey: "  " }) was accepted, though no metadata key is spaces and a hook name of spaces was already refused (nameOption); it now throws budget: tenantKey must be a non-empty string, got "  "',
    items: ["J1"],
    tests: [
      t(
        "test/middleware/budget.test.ts",
        "refuses a tenantKey that is not a non-empty string, and a price table that prices no model, naming the field",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "2565219",
    title:
      "What a mounted command or HTTP hook had to tell the user never reached Claude Code through claude-hook, and once it did, it was said twice",
    where: "{{src/executors/external.ts|export const routeHookNotices = }}, {{src/cli/claude-hook.ts|const restore = routeHookNotices(}}",
    repro:
      'a settings command hook failing on SessionStart with "could not fetch issues": claude-hook let it out as an AgentOnionHookWarning, a Node warning on stderr that Claude Code does not show (392a615 read process warnings back into the systemMessage); Node still printed each warning on stderr, so an exit-2 answer said it twice (found by a review of 392a615). External hooks made without an onNotice now send their notices to a sink a host can route (routeHookNotices, process warnings otherwise), and claude-hook puts hook errors, failed or dropped background hooks and systemMessage answers in its systemMessage, or on stderr with exit 2',
    items: ["K1", "C4"],
    tests: [
      t(
        "test/cli/claude-hook.test.ts",
        "shows the user a mounted command hook's SessionStart error, as Claude Code would, and keeps the context",
      ),
      t(
        "test/executors/command.test.ts",
        "sends the notices of a hook made without onNotice to a host that routes them, and to process warnings again after",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "40cdc14",
    title:
      "An answer given in place of the provider's (a fallback's, a recovery's) went out with the rejected answer's reasoning, sources, warnings and response data",
    where:
      "{{src/adapters/ai-sdk.ts|const from = attempts.of(outcome.value);}} (generate, see src/adapters/ai-sdk/attempts.ts), {{src/agent/stream/through-stack.ts|const fromLast = }} (stream)",
    repro:
      "an inner guard fails the primary's answer for holding a card number and fallback({ models: [backup] }) answers: generateText returned the backup's text inside the primary's rejected result, with its reasoning (\"The user's card is 4111 1111 1111 1111, I will repeat it.\"), its sources, response id primary-resp, its warnings and usage details contradicting the totals (noCacheTokens 100 against inputTokens 7) (found by the adapters audit, fixed in be7c845); streamText still gave the fallback's answer the rejected attempt's stream-start warnings and response id primary-resp (found by a review of be7c845)",
    items: ["G6", "G1"],
    tests: [
      t(
        "test/adapters/ai-sdk/response.test.ts",
        "holds only a fallback model's answer, none of the rejected provider answer's reasoning, sources, warnings or response data",
      ),
      t("test/adapters/ai-sdk/response.test.ts", "holds only a recover hook's answer when it answers for a rejected provider answer"),
      t(
        "test/adapters/ai-sdk/stream-fallback.test.ts",
        "goes out without the failed attempt's warnings and response id, as generateText returns the fallback's answer",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "e6f5496",
    title:
      "A provider's error part cut an AI SDK stream short, losing the rest of its text and its usage; passed through, an overload before any output was then not retried",
    where:
      '{{src/adapters/ai-sdk/stream.ts|if (part.type === "error") memo.erred = true;}} (passed through as a raw part), {{src/adapters/ai-sdk/stream.ts|if (!showing && shows(value)) {}} (held until the stream shows something)',
    repro:
      'a provider streaming "Hello ", an error part, "world" and a finish with usage 10/5 (as @ai-sdk/openai reports a chunk it cannot parse): through the middleware the SDK got "Hello " and an empty usage, and after hooks never ran (found by the adapters audit; d2a53db passes the part through). Then a stream sending stream-start, Anthropic\'s overloaded_error and a finish with no output completed empty: 1 provider call where retry and fallback had made 3 and answered "backup answer", and metrics counted a success (found by a review of d2a53db). Such an error part now fails the attempt (a ModelStreamError, shown: false) when the stream ends having shown nothing',
    items: ["G4", "H1"],
    tests: [
      t(
        "test/adapters/ai-sdk/stream-error-part.test.ts",
        "does not end the stream: the rest of the text and the provider's usage reach the SDK as without the middleware, and after hooks see them",
      ),
      t(
        "test/adapters/ai-sdk/stream-error-part.test.ts",
        "fails the attempt when the stream then ends without showing anything, so retry asks again and the reader gets only the kept answer",
      ),
      t("test/adapters/ai-sdk/stream-error-part.test.ts", "fails the attempt so that fallback answers when retries are spent"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "6e4e947",
    title: "isAgentOnionError was false for nine of the package's error classes",
    where: "{{src/core/errors.ts|export const brandError = }} (the brand is on the prototype, so TypeError subclasses carry it too)",
    repro:
      "a hook answering Reject on an observation point failed with a RejectOnObserveError for which isAgentOnionError(cause) was false, though its summary promises every error agent-onion raises, across bundles; OutcomeRejectedError, SettingsError, HeaderError, BridgeEventError, SerializeError, UsageError, ClaudeStopFailure and UnsupportedSpecificationError likewise (found by the core audit)",
    items: ["K1"],
    tests: [
      t("test/core/errors.test.ts", "are found among the package's exports"),
      t("test/core/errors.test.ts", "are each recognised by isAgentOnionError, as its summary promises (whatever they extend)"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "ae8e0ff",
    title:
      "fromKoa: a next() not awaited failed the hook saying next() was never called, and crashed the process with an unhandled rejection",
    where: "{{src/adapters/koa.ts|class NextCalls {}}, {{src/adapters/koa.ts|await made.ended();}}",
    repro:
      "fromKoa((ctx, next) => { next(); }) on toolCall: the run answered Rejected (\"Koa middleware returned without calling next(), setting ctx.output or calling ctx.reject()\") while the tool call it had started ran on, and that next()'s late outcome became an unhandled NextMisuseError (run already settled), which ends a Node process (found by the adapters audit). Such a middleware now passes on that next()'s outcome once it ends, as the core does (R4); a second next() fails the hook whether it was awaited, dropped or caught, and the operation runs once",
    items: ["A5", "A3"],
    tests: [
      t("test/adapters/koa.test.ts", "waits for it and passes its outcome on, as the core does for a dangling next() (R4)"),
      t(
        "test/adapters/koa.test.ts",
        "fails the hook for a second next() even when the middleware catches its refusal, as the core does (R4)",
      ),
      t("test/adapters/koa.test.ts", "reports a next() called after the hook answered as a failure, and leaks no rejection"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "6a37ddf",
    title: 'generateText threw "Tool call ws1 not found." when a hook or an output gate removed a provider-executed tool call',
    where:
      '{{src/adapters/ai-sdk/response.ts|const linked = new Set(["tool-result", "tool-approval-request"]);}} (a part naming a removed call goes with it)',
    repro:
      "a provider answering a web_search tool-call, its tool-result and text holding an address, with outputGate blocking addresses: streamText blocked the answer cleanly, while generateText threw an untyped Error naming no hook, since the tool-result stayed after its call was removed; an after hook filtering toolCalls did the same (found by the adapters audit). A tool-result answering a call of an earlier step (a deferred result) stays",
    items: ["G1"],
    tests: [
      t(
        "test/adapters/ai-sdk/response.test.ts",
        "goes with its call when an output gate blocks the answer: the same verdict as on streamText",
      ),
      t("test/adapters/ai-sdk/response.test.ts", "goes with its call when an after hook removes the call"),
      t(
        "test/adapters/ai-sdk/response.test.ts",
        "stays when it answers a call of an earlier step (a deferred result), which was never in this result",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "f858106",
    title:
      "A point's span ended late with the wrong error, or never, when its run timed out or was aborted while the operation ignored the signal",
    where:
      "{{src/middleware/tracing.ts|const settled = (event: RunEvent)}} (the run's observer ends a span its around has not), {{src/middleware/tracing.ts|A run whose signal aborted settled before this next() did}}",
    repro:
      'a toolCall with timeoutMs: 100 whose operation answers at 500 ms: the caller got Failed(RunAbortedError) at 103 ms, but the span execute_tool Deploy was exported only at 600 ms, 505 ms long, with error.type NextMisuseError ("run already settled"); a modelCall aborted by the caller at 50 ms whose operation never settles never ended its chat span, leaving its hook span orphaned (found by the stores audit)',
    items: ["C2", "K2"],
    tests: [
      t(
        "test/middleware/tracing.test.ts",
        "ends a point's span when its run times out, with the run's error and time, though the operation answers later",
      ),
      t(
        "test/middleware/tracing.test.ts",
        "ends a point's span and its hooks' parent when the caller aborts a run whose operation never settles",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "9d67548",
    title:
      "A session id cut through an emoji (a lone surrogate) made every guard keyed by it fail closed with 'URI malformed', and RedisStore merged keys that differ in lone surrogates",
    where:
      "{{src/core/state.ts|export const keyPart = }}, {{src/core/state.ts|must be well-formed UTF-16}} (checkKey), {{src/middleware/guard-common.ts|keyPart(ctx.runId)}}",
    repro:
      'sessionId "Trip \\ud83c" (a title cut with slice(0, 6)): a gate counting with ctx.state().incr answered Rejected (hook "count" failed in before on tool: threw: URI malformed) on every tool call (found by the core audit). e3e4f91 fixed ctx.state and the middleware\'s scopes, but not the run keys of tokenBudget, timeLimit and finishReasonStop nor rateLimit\'s per-tool key, so with the agent\'s run ids beginning with the session id tokenBudget still failed every step (found by a review of e3e4f91). Keys differing only in lone surrogates were two keys in MemoryStore and one in RedisStore, which stores U+FFFD (incr gave 1 and 2; found by the stores audit): checkKey refuses them now',
    items: ["I3"],
    tests: [
      t("test/core/stack.test.ts", "keeps session state for an id cut through an emoji (a lone surrogate), apart from every other id"),
      t(
        "test/middleware/token-budget.test.ts",
        "work for a session id cut through an emoji (a lone surrogate), which the agent's run ids begin with",
      ),
      t(
        "test/core/memory-store.test.ts",
        "refuses a key holding a lone surrogate, which Redis would store as U+FFFD and so merge with others",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "796960d",
    title: "An AI SDK stream retried after its first attempt failed to open came out all at once, without the provider's response headers",
    where: "{{src/adapters/ai-sdk.ts|An attempt that fails to open settles nothing}}",
    repro:
      "attempt 1's doStream throws a 429 and retry opens attempt 2, which streams 10 chunks 100 ms apart: streamText got its first text after 1 364 ms, with the stream done at 1 381 ms (120 ms without the failure), could not cancel meanwhile, and its response headers were undefined instead of attempt 2's x-request-id req-2 (found by the adapters audit)",
    items: ["G4", "C2"],
    tests: [
      t(
        "test/adapters/ai-sdk/stream-start.test.ts",
        "still streams: the reader gets the first text before the provider's stream has ended",
      ),
      t("test/adapters/ai-sdk/stream-start.test.ts", "keeps the response headers of the attempt that opened"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "f7a4699",
    title: "retry and fallback re-sent or contradicted reasoning the reader was already shown, with the failed attempt's warnings",
    where:
      "{{src/agent/stream/control.ts|export const streamShown = }}, {{src/middleware/retry.ts|if (streamStarted(outcome.error) || streamShown(ctx)) break;}}, {{src/agent/stream/pump.ts|else if (!shown && describesCall(part)) preamble.push(part);}}",
    repro:
      'retry({ attempts: 2 }) over a stream whose first attempt sent stream-start, response-metadata and reasoning r1, then failed: the reader got two reasoning-start parts with id r1, reasoningText held both attempts\' ("thinking (attempt 1)...thinking (attempt 2)...") and the warnings were the failed attempt\'s (found by the adapters audit; 63a6709 counts a shown part in streamStarted and holds stream-start and response-metadata until the attempt shows something). When an inner guard (redaction\'s api_key block) rather than the provider failed the attempt after the reader saw reasoning, retry still ran it again (reasoningText "thinking 1thinking 2") and fallback glued "backup answer" onto the shown reasoning (found by a review of 63a6709); the run\'s StreamControl now records what the reader was shown (streamShown)',
    items: ["G2", "G5"],
    tests: [
      t("test/adapters/ai-sdk/stream-retry.test.ts", "is not retried once the reader was shown reasoning: the reader would see it twice"),
      t(
        "test/adapters/ai-sdk/stream-retry.test.ts",
        "sends the stream-start and response metadata of the attempt it keeps, once, when an attempt that showed nothing is retried",
      ),
      t("test/adapters/ai-sdk/stream-retry.test.ts", "the reader keeps one attempt's reasoning and warnings, and gets no other answer"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "2679c7d",
    title: "readOnlyTools' Glob matched a model-written pattern with a backtracking RegExp that could block the process for minutes",
    where: "{{src/executors/readonly-tools.ts|const toolGlob = }} (the core's linear compileGlob instead of picomatch)",
    repro:
      "Glob \"*a*a*a*a*a*a*b\" over a root holding one file named with 60 a's returned after 8 768 ms, a 100 ms timer firing only then and the tool's signal never aborting; a 16-character pattern took 52 794 ms. The match was synchronous, so neither the tool's signal nor the agent hook's timeoutMs could stop it (found by the docs audit: the README said stars were matched by the linear matcher, picomatch only for bracket classes)",
    items: ["J3"],
    tests: [
      t(
        "test/executors/agent-hook.test.ts",
        "matches a model-written pattern full of stars in linear time, so it cannot stall the process",
      ),
      t(
        "test/executors/agent-hook.test.ts",
        "globs as a shell does: anchored at the root, dotfiles hidden unless the pattern names a dot segment",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "0c5d5ef",
    title:
      "An AI SDK message a hook rewrote was sent with its parts reordered: text first, reasoning after it, a provider tool's result before its call",
    where: "{{src/adapters/ai-sdk/prompt.ts|let textPlaced = false;}} (rebuildMessage rebuilds in place)",
    repro:
      "a before hook replacing an e-mail address in an earlier assistant message whose parts were reasoning, tool-call, tool-result, text: it was sent as text, reasoning, tool-result, tool-call, which providers that check the order (a thinking block first, a server tool's result after its call) may refuse (found by the adapters audit)",
    items: ["A9"],
    tests: [
      t(
        "test/adapters/ai-sdk/prompt-order.test.ts",
        "keeps its parts in their order: reasoning first, a provider tool's result after its call, the new text where the text was",
      ),
      t(
        "test/adapters/ai-sdk/prompt-order.test.ts",
        "puts its text where the first text part was and each tool call where it was, the hook's changed call included",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "2298021",
    title: "budget refunded a streamed call that failed part-way, and tokenBudget and metrics left out what it spent",
    where: "{{src/middleware/budget.ts|export const spentBy = }} (read by budget, tokenBudget and metrics)",
    repro:
      "a provider streams 7 500 characters and then errors: the consumer saw them all and the outcome was Failed(ModelStreamError) with partial usage 3/1875, yet budget used after the call was 0, so a prompt that always fails late could spend without limit (found by the stores audit); tokenBudget added nothing for such a step, and metrics left out usage the provider had reported. A stream that failed before sending anything is still refunded",
    items: ["H2", "H1"],
    tests: [
      t("test/middleware/budget.test.ts", "charges what a stream spent before the provider failed it part-way, rather than refunding it"),
      t("test/middleware/budget.test.ts", "still refunds a stream that failed before the provider sent anything"),
      t("test/middleware/token-budget.test.ts", "counts the tokens a step's stream spent before the provider failed it"),
      t("test/middleware/metrics.test.ts", "reports the token usage a provider reported for a stream that then failed"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "c357089",
    title:
      "A response without usage or a finish reason that hooks settled on failed deep inside the AI SDK adapter, and the two paths judged token counts differently",
    where:
      "{{src/agent/response-shape.ts|export const notAResponse = }}, {{src/adapters/ai-sdk.ts|const malformed = notAResponse(outcome.value);}}, {{src/agent/stream/through-stack.ts|const malformed}}",
    repro:
      "a cache's Replace({ text, toolCalls }) restored from JSON, or an after hook that rebuilt the response: generateText and streamText both threw \"TypeError: Cannot read properties of undefined (reading 'inputTokens')\" from inside the adapter, naming no hook (found by the adapters audit; fixed for generate in 7d8448d, for streams in 757dc11). Then an after hook's usage with inputTokens NaN, -3 or Infinity gave generateText a result (usage NaN, or -3 input tokens) and streamText a TypeError worded otherwise (found by a review). Both now refuse it with one TypeError: the modelCall response is not a response (…), got <the value>",
    items: ["A7", "G1"],
    tests: [
      t(
        "test/adapters/ai-sdk/response.test.ts",
        "is refused as the stream refuses a malformed response, saying what is missing: a cache entry restored without usage",
      ),
      t(
        "test/adapters/ai-sdk/stream-malformed.test.ts",
        "fails the stream with a TypeError saying the response has no usage, not a TypeError from deep inside the adapter",
      ),
      t("test/agent/stream/through-stack.test.ts", "fails the call, saying what a response needs, when a hook answers a response"),
      t("test/adapters/ai-sdk/response.test.ts", "is refused on generateText as on streamText, with the same TypeError, when a count is"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "8134ae7",
    title:
      "audit and chromeTraceRecorder wrote the session id and the run id unscrubbed, and the first fix made every secret-looking session id one placeholder",
    where: "{{src/middleware/audit.ts|const idRedactor = }}, {{src/middleware/chrome-trace.ts|runId: scrub(run.runId)}}",
    repro:
      'an agent session with sessionId alice.smith@example.com and metadata.user the same: the audit line held "sessionId":"alice.smith@example.com" and runId alice.smith@example.com#1-10b12c2c beside "metadata":{"user":"[REDACTED:email]"}, and the Chrome trace\'s runId args held it too (found by the stores audit; fixed in 175e913). That fix wrote sessions sess_01J8Z3K4M5N6P7Q8R9S0T1U2V3 and …V4 both as [REDACTED:secret], so the lines of two sessions could no longer be told apart (found by a review of 175e913); ids are now scrubbed by hashing what the detectors find ([email:sha256:…])',
    items: ["I6"],
    tests: [
      t("test/middleware/audit.test.ts", "scrubs the session id and the run id, which embeds it, as it scrubs the same email in metadata"),
      t(
        "test/middleware/audit.test.ts",
        "keeps sessions apart when their ids look like secrets: an id is hashed, not replaced by one placeholder for all",
      ),
      t("test/middleware/chrome-trace.test.ts", "scrubs the run id as it scrubs the session it names"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "c408c33",
    title: "claude-hook denied an approval asked by a module that exports a stack, where the README promises Claude Code's ask",
    where:
      "{{src/core/run-context.ts|const own: unknown = this.options?.approval;}} (RunOptions.approval), {{src/executors/bridge.ts|(options.approval ?}}",
    repro:
      'export default withMiddleware(createAgentStack(), approval({ match: "Bash" })) run by claude-hook on a PreToolUse Bash ls answered permissionDecision deny ("Bash was not approved: … but no approval handler is configured, so no one could approve"): the bridge\'s handler reached only a module exporting a factory, which passes it to createAgentStack (found by the docs audit). A run may now name its own approval handler, and the bridge passes claude-hook\'s per run',
    items: ["B3", "B5"],
    tests: [
      t(
        "test/cli/claude-hook.test.ts",
        "turns an approval request into Claude Code's ask also when the module exports a stack, not a factory",
      ),
      t("test/core/stack.test.ts", "asks the run's own approval handler, when it has one, instead of the stack's"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "1fb702a",
    title: "RedisStore silently used database 0 when its configured database did not exist",
    where: "{{src/stores/redis-connection.ts|const wrongDatabase = }}",
    repro:
      'a store on redis://…:6391/99 against a server with 16 databases wrote there without error, a second store configured with db: 42 read the first one\'s value, and redis-cli -n 0 showed the key: ioredis reports a failed SELECT only as an error event, which the store swallowed (found by the stores audit). Every operation now fails with StateStoreError ("Redis could not select database 99: ERR DB index is out of range"); a client passed in is not watched',
    items: ["H3", "J1"],
    tests: [
      t("test/stores/redis.test.ts", "refuses every operation when the configured database does not exist, rather than using database 0"),
      t("test/stores/redis.test.ts", "keeps its data in the configured database when it exists"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "47dad42",
    title:
      "Streamed text lost the provider's metadata (item ids, thought signatures, ai 7 citations), and then kept it on text a hook changed to the same length",
    where:
      "{{src/adapters/ai-sdk/stream.ts|memo.blocks.push({ id: part.id}} (each text block remembered), {{src/adapters/ai-sdk/stream.ts|const provider = own !== undefined && this.memo.text.startsWith(own, at);}}, {{src/adapters/ai-sdk/stream.ts|citations = block.citations;}}",
    repro:
      "with any modelCall hook, a provider streaming text-start and text-delta with a Gemini thoughtSignature and a text-end with OpenAI's itemId msg_123: the step's content and the next step's message held the text \"Hello\" with no metadata, where generateText kept it (found by the adapters audit; fixed in b22191b). A chunk hook that upper-cased every delta then sent HELLO THERE. in the provider's block with its item id, since a piece as long as the provider's text was taken for it (fixed in 9177d88), and on ai 7 a text-end's citations were still dropped on streams (1 on generate, none on the stream; found by a review of b22191b)",
    items: ["G5", "G1"],
    tests: [
      t(
        "test/adapters/ai-sdk/stream-text-metadata.test.ts",
        "reaches the SDK on every text part, in the step's content and in the next step's message, as without the middleware",
      ),
      t(
        "test/adapters/ai-sdk/stream-text-metadata.test.ts",
        "is left off text a hook changed: an item id must not stand for text the provider did not write",
      ),
      t("test/adapters/ai-sdk/stream-text-metadata.test.ts", "is left off text a hook changed to text of the same length, chunk by chunk"),
      t("test/adapters/ai-sdk-v4.test.ts", "reach the step's content on streamText, as on generateText, while hooks leave the text alone"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "2bc9101",
    title:
      "RedisStore's errors blamed the network for a refused password, and said 'unreachable: undefined' to operations that close() ended",
    where:
      "{{src/stores/redis-connection.ts|const cause = health.get(client)?.last;}}, {{src/stores/redis.ts|Waiting for a connection that close() ended is not an outage.}}",
    repro:
      'against a server with --requirepass, the first operation said "Redis is unreachable: NOAUTH Authentication required." and every later one "Redis is unreachable (reconnecting)" with no cause, WRONGPASS likewise; operations waiting for a connection when close() was called rejected with "Redis is unreachable: undefined" (found by the stores audit)',
    items: ["H3", "K1"],
    tests: [
      t(
        "test/stores/redis-unavailable.test.ts",
        "names the authentication failure on every operation, not only the first, while the client reconnects",
      ),
      t(
        "test/stores/redis-unavailable.test.ts",
        "says the store is closed to operations that were waiting for a connection when it closed",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "e978f66",
    title: "close() on a RedisStore view made by scope() closed the connection for the store and every other view",
    where: "{{src/stores/redis.ts|if (this.#view) return;}}",
    repro:
      'await root.scope("tenant-a").close() made root.get("x"), and every other tenant\'s view, fail with "the RedisStore is closed" (found by the stores audit); now only the view closes, and the store that made the connection still closes it and every view with it',
    items: ["H3", "H6"],
    tests: [
      t(
        "test/stores/redis.test.ts",
        "closes only the view when a view made by scope() is closed: the store and its other views go on until the store closes",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "4313d17",
    title:
      "A retry's kept attempt had its signal aborted because an abandoned attempt was still pending, and the abandoned attempt was told only when the whole run ended",
    where:
      '{{src/core/run-context.ts|callContext(input: unknown, frame?: Frame): HookContext<I> {}} (a signal for each operation call), {{src/core/run-context.ts|class GivenUpOn implements AbortWatcher {}}, {{src/core/around.ts|if (own !== undefined && hook.failMode === "closed" && !hook.shadow) this.scope = own;}}',
    repro:
      "an outer around retrying once, an inner { timeoutMs: 50, around: (_c, next) => next() }, attempt 1 taking 300 ms and attempt 2 resolving at 66 ms with a streaming body: both attempts shared the run's signal, which aborted with OperationAbandonedError when the run settled at 67 ms, so the caller's read of the kept result failed at 86 ms, and attempt 1, given up on at 54 ms, ran beside attempt 2 until then (found by the core audit). d4bfd22 gave each operation call a signal of its own; 4313d17 aborts it at the timeout of a timed around hook around it that fails closed, and removes d4bfd22's cost: an OperationAbandonedError built with its stack trace at the end of nearly every run with a caller signal, about 6 µs instead of 1 (found by a review of d4bfd22)",
    items: ["C1", "C2"],
    tests: [
      t(
        "test/core/cancellation.test.ts",
        "keeps the signal of a retried attempt whose result the caller got, and aborts only the attempt left behind",
      ),
      t(
        "test/core/cancellation.test.ts",
        "tells an attempt its timed around hook gave up on at that hook's timeout, before a retry starts the next (R7)",
      ),
      t(
        "test/core/cancellation.test.ts",
        "does not tell the operation at a timed around hook's timeout when the hook fails open or only watches (shadow)",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "8f882ca",
    title:
      "A hook left running in a frame its run left behind was never told: its timer kept the process alive, and approval's question stayed open",
    where:
      "{{src/core/invoke.ts|this.run.hold(this.own);}} (a timed hook is told at RunContext.end), {{src/middleware/approval.ts|timeoutMs: maxTimerMs,}}",
    repro:
      "an around answering Replace without waiting for next(), and inside it a before hook with timeoutMs: 3000 listening to ctx.signal: the run settled at 3 ms, and the hook was told only at its own timeout, its timer keeping the process alive until 3 007 ms (fixed in d4bfd22); with approval() there instead, the question for a call already answered stayed open, and the process alive, for the whole approval timeoutMs (300 s by default) (found by the core audit, confirmed by a review of d4bfd22). approval's hook now has a hook timeout just past its own, never reached, which makes it a hook the run tells when it settles",
    items: ["C4", "C1"],
    tests: [
      t(
        "test/core/cancellation.test.ts",
        "tells a timed hook left running in a frame its run left behind, and clears its timer, when the run settles",
      ),
      t(
        "test/middleware/approval.test.ts",
        "withdraws the question when the run settles without waiting for it (a cache answered around it), and leaves no timer",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "4794428",
    title: "Eleven concurrent runs under one caller signal made Node warn of an EventTarget memory leak",
    where: "{{src/agent/session.ts|const link = sharedLink(a ?? b);}} (a turn's own signal, which its runs listen to)",
    repro:
      "11 parallel tool calls under one turn signal printed MaxListenersExceededWarning: Possible EventTarget memory leak detected. 11 abort listeners added to [AbortSignal], for a leak that did not exist (found by the core audit). 58d44c8 shared one listener per caller signal among its runs, which made every run with a caller signal slower (about 1.8 to 2.7 µs a run against 1.5 to 1.8 in one process); 4794428 undid it, and a turn now follows the caller's signal through a signal of its own with no listener limit, which its runs, steps, parallel tool calls and sub-agents listen to. A user's own signal shared by more than ten concurrent stack.run calls still gets Node's warning (raise its limit with events.setMaxListeners)",
    items: ["A15", "C2"],
    tests: [
      t(
        "test/agent/tools.test.ts",
        "runs a dozen parallel calls under the caller's signal without Node's leak warning, and leaves nothing listening on it",
      ),
      t("test/core/run-signal.test.ts", "tells every run under one caller's signal when it aborts, and leaves nothing listening"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "a13852a",
    title: "wrapMcpClient guarded only callTool: a tools/call sent with request() or the task API's callToolStream went around every hook",
    where:
      '{{src/adapters/mcp.ts|members.set("request", () => guarded);}}, {{src/adapters/mcp-stream.ts|export async function* guardedStream(}}',
    repro:
      'a stack with { match: "delete_repo", before: () => Reject("never") }: wrapped.callTool was rejected, but wrapped.request({ method: "tools/call", params: { name: "delete_repo", arguments: { repo: "prod" } } }, CallToolResultSchema) answered "deleted prod" and wrapped.experimental.tasks.callToolStream(...) "deleted staging" (the proxy handed out the original request, and the task API\'s own requestStream). Now every tools/call, also requestStream\'s, runs through the toolCall point; a streamed call passes its task messages on as they arrive and ends with the hooked result; the final review found the streamed call\'s listener left on the caller\'s signal when a reader took the result and stopped (one per call), and the client\'s methods fixed at wrap time, so one replaced after wrapping was ignored: both fixed in a13852a',
    items: ["G1"],
    tests: [
      t("test/adapters/mcp.test.ts", "runs a tools/call sent through the client's generic request() through the toolCall point too"),
      t(
        "test/adapters/mcp-stream.test.ts",
        "run experimental.tasks.callToolStream through the toolCall point: a rejection is the stream's only message, and no task is made",
      ),
      t(
        "test/adapters/mcp-stream.test.ts",
        "pass the task's messages on as they arrive, and end with the result as the after hooks left it",
      ),
      t("test/adapters/mcp-stream.test.ts", "guard the task API's requestStream and the client's own for tools/call the same way"),
      t("test/adapters/mcp-stream.test.ts", "leave no listener on the caller's signal once the run settled"),
      t("test/adapters/mcp.test.ts", "reads the client's request at each call"),
    ],
  },
  {
    kind: "limitation",
    status: "open",
    title: "readOnlyTools' Glob lets stars match dotfiles once a pattern names any dot segment",
    where: "{{src/executors/readonly-tools.ts|const namesDot}}",
    repro:
      "since 2679c7d (the linear glob): `.config/*` lists `.config/.env` and `**/.env` finds `.config/.env`, which picomatch's `dot: false` did not; patterns that name no dot segment hide dotfiles as before. Not a confinement hole: Read can open dotfiles under the root anyway (found by a review)",
    items: ["I5"],
    tests: [
      t(
        "test/executors/agent-hook.test.ts",
        "globs as a shell does: anchored at the root, dotfiles hidden unless the pattern names a dot segment",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "3539004",
    title:
      "A rejection by a hook that failed closed lost its cause (the HookError) in getOrThrow, the agent, wrapModel and aiSdkMiddleware, so a guard that broke read like one that said no",
    where:
      "{{src/core/outcome.ts|throw new OutcomeRejectedError(o.reason, o.by, o.cause)}}, {{src/agent/session.ts|const rejected = (}}, {{src/agent/loop.ts|const error = new OutcomeRejectedError(outcome.reason, outcome.by, outcome.cause);}}, {{src/agent/model-step.ts|new OutcomeRejectedError(outcome.reason, outcome.by, outcome.cause)}}, {{src/adapters/ai-sdk.ts|return new OutcomeRejectedError(outcome.reason, outcome.by, outcome.cause);}}, {{src/agent/stream/through-stack.ts|new OutcomeRejectedError(outcome.reason, outcome.by, outcome.cause)}}",
    repro:
      'a userPrompt or run hook that threw "db down" gave the turn { status: "rejected", reason: "hook \\"guard\\" failed in before on run: threw: db down", by: "guard" } with nothing else, the same shape as Reject("not allowed"); SessionRejectedError had cause undefined; a modelCall hook with failMode "closed" that threw reached the error point, TurnResult.error and wrapModel().generate as an OutcomeRejectedError with cause undefined; a step hook that failed closed reached the error point as a plain Error ("step rejected by …") that isAgentOnionError denied (found by the agent audit). Fixed in 1da2e6b (Outcome.getOrThrow), c6ab235 (TurnResult.cause, SessionRejectedError\'s cause, the step\'s OutcomeRejectedError), 80f69da (the loop\'s model call) and 3539004 (wrapModel\'s stream and generateText through aiSdkMiddleware, found by the agent model-step fix helper); a plain Reject still has no cause',
    items: ["B5", "K1"],
    tests: [
      t("test/core/errors.test.ts", "throws an OutcomeRejectedError whose cause is the hook failure behind a rejection"),
      t("test/agent/rejection-cause.test.ts", "reports the hook's error as the cause of a turn a"),
      t("test/agent/rejection-cause.test.ts", "gives SessionRejectedError the error of a sessionStart hook that crashed as its cause"),
      t(
        "test/agent/rejection-cause.test.ts",
        "sends a step hook that failed closed to the error point as an OutcomeRejectedError with the hook's error as its cause",
      ),
      t(
        "test/agent/model-step.test.ts",
        "reaches the error point and the turn as an OutcomeRejectedError whose cause is the hook's HookError",
      ),
      t("test/agent/wrap-model.test.ts", "ends its stream with the same OutcomeRejectedError, cause and all"),
      t("test/adapters/ai-sdk.test.ts", "makes generateText throw when a hook fails closed"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "6ea75cd",
    title: "redaction's model-output hook failed open: when its check threw, the whole answer went out unchecked, block kinds included",
    where: "{{src/middleware/redaction.ts|must not go out as if it had been}} (the modelCall hook's failMode)",
    repro:
      'redaction({ strategies: { api_key: "block" } }) and a response whose text held an API key and whose tool call input was nested 71 levels deep (or had a cycle, or a custom detector threw): the hook failed with "value nested deeper than 64 levels; refusing to pass it unchecked", the observe point\'s default failMode "open" recorded it, and the call completed with "here is the key sk-ant-api03-…" in the clear; through createAgent the turn completed with the key in the history sent back to the model, while the streamed path failed (found by the middleware audit). The hook now fails closed: such a call ends Rejected with the hook\'s error on generate and stream, and an agent turn fails with nothing of the answer in its history',
    items: ["G6", "A1", "I2"],
    tests: [
      t("test/middleware/redaction-fail-closed.test.ts", "never completes a generated answer it could not scan"),
      t("test/middleware/redaction-fail-closed.test.ts", "never completes a generated answer when a custom detector throws"),
      t(
        "test/middleware/redaction-fail-closed.test.ts",
        "never completes a streamed answer it could not scan, and releases none of its secret",
      ),
      t(
        "test/middleware/redaction-fail-closed.test.ts",
        "fails the agent's turn, generated or streamed, and the secret reaches neither the model's history nor the caller",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "60ae440",
    title:
      "Hook names were written unscrubbed to audit, the Chrome trace, spans and metric attributes, while the same name inside a reason was scrubbed",
    where:
      "{{src/middleware/telemetry-attrs.ts|export const scrubbedNamesOf = }}, {{src/middleware/audit.ts|hook: hookName(d.hook),}}, {{src/middleware/chrome-trace.ts|by: run.by === undefined ? undefined : hookName(run.by)}}, {{src/middleware/tracing.ts|const hook = hookName(d.hook);}}, {{src/middleware/metrics.ts|const hookName = scrubbedNamesOf(createRedactor());}}",
    repro:
      "an httpHook on https://127.0.0.1/api/webhooks/1234567890/sk_live_… (whose default name was its path, see the next finding): the audit decision line held \"hook\":\"http:127.0.0.1/api/webhooks/1234567890/sk_live_…\" and the run line the same \"by\", beside a reason that scrubbed it to [REDACTED:ip_address]; the span \"hook http:127.0.0.1/…/sk_live_…\", its hook.name and agent_onion.rejected_by, the Chrome trace's event names and args.by, and the metrics' hook.name held it too (found by the middleware audit). Now audit and the Chrome trace scrub hook and by as they scrub reasons, tracing through its redact option, and metrics through the default detectors to a placeholder (no hash, so scrubbing never adds a series). The review of 91eae2c found what it cost: audit, tracing and the Chrome trace scanned every decision's hook name and every rejection's by with the detectors again, about 7.5 µs each, so audit's observer went from 83 to 237 µs for a 20-decision event and each Chrome trace write scanned every decision's name; since 60ae440 each name is remembered once scrubbed (scrubbedNamesOf in telemetry-attrs.ts, a Map per audit(), tracing() and recorder, capped at 1000 names as metrics' was, past which a name is scrubbed each time; metrics uses the same function since c616719), and audit's observer is back to about 120 µs",
    items: ["I6"],
    tests: [
      t(
        "test/middleware/audit.test.ts",
        "scrubs hook names and the rejecting hook's name, which may carry a credential, as it scrubs reasons",
      ),
      t("test/middleware/chrome-trace.test.ts", "scrubs hook names in event names and the rejecting hook's name, as it scrubs reasons"),
      t(
        "test/middleware/tracing.test.ts",
        "scrubs hook names in hook spans and the rejecting hook's name on the point's span, as it scrubs reasons",
      ),
      t(
        "test/middleware/metrics.test.ts",
        "scrubs hook names, which may carry a credential, to a placeholder that keeps their cardinality low",
      ),
      t("test/middleware/audit.test.ts", "scrubs each hook name once per audit, however many decisions and runs name it"),
      t(
        "test/middleware/chrome-trace.test.ts",
        "scrubs each hook name once per recorder, however many runs name it and however often the trace is written",
      ),
      t("test/middleware/tracing.test.ts", "scrubs each hook name once per tracing, however many hook spans and rejections name it"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "5fd516b",
    title:
      "An HTTP hook's default name, and the warning for one the allowlist refused, held its URL's path, where webhooks keep their credential",
    where: "{{src/executors/http.ts|export const httpHookLabel = }}, {{src/executors/settings.ts|const refusedUrlLabel = }}",
    repro:
      'httpHook({ event: "PreToolUse", url: "https://127.0.0.1/api/webhooks/1234567890/sk_live_…" }) was named http:127.0.0.1/api/webhooks/1234567890/sk_live_… (a settings-defined one PreToolUse:http:<host><path>), and the name went into rejection reasons the model reads, audit records, spans and metrics (found by the middleware audit; fixed in 2942679: the name is now http:<host>#<8 hex digits of the URL\'s sha256>, two hooks on one host still apart, an explicit name kept). fromClaudeSettings still wrote the whole URL in the unused reason of an HTTP hook allowedHttpHookUrls refused, printed with the warnings (found by the executors fix helper; fixed in 5fd516b: "the HTTP hook to hooks.example.net#<hash> is not in allowedHttpHookUrls")',
    items: ["I6", "K1"],
    tests: [
      t("test/executors/http.test.ts", "leaves the URL's path and query out of its default name, and so out of the reason a failure gives"),
      t("test/executors/http.test.ts", "gives two hooks on one host different default names, and the same URL the same name"),
      t("test/executors/settings-rules.test.ts", "carry the host, not the URL's path or query, where a webhook keeps its credential"),
      t("test/executors/settings.test.ts", "says which HTTP hook the allowlist refused by its host and a hash, never its path or query"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "996eeda",
    title:
      "allowedHttpHookUrls was matched on the URL as written while the request went to the normalised URL, so `..` and `%2e%2e` in the path got around it",
    where: "{{src/executors/settings-rules.ts|return pattern.test(url) && requested.some((form) => pattern.test(form));}}",
    repro:
      "under allowedHttpHookUrls [http://127.0.0.1:P/hooks/*] the handlers /hooks/../admin/delete, /hooks/%2e%2e/admin/delete and /hooks/.%2E/admin were loaded and every event (tool inputs included) was POSTed to /admin/delete or /admin, while /admin/delete itself was refused (found by the executors audit). a1ea89d matched the normalised href instead, but read the pattern's host case-insensitively, which loaded https://HOOKS.EXAMPLE.COM/pre under [https://hooks.example.com/*], a row test/reliability/config.test.ts (E6) pins as refused; 996eeda requires a match both as written and as requested (dot segments resolved, fragment dropped): the bypasses stay refused, E6's rows hold, and a fragment, never sent, cannot be what makes a URL match",
    items: ["E6", "I5"],
    tests: [
      t("test/executors/settings-rules.test.ts", "matches the URL the request is sent to, so"),
      t("test/executors/settings-rules.test.ts", "does not let a fragment, which is never sent, be what makes a URL match"),
      t(`${R}/config.test.ts`, "with [https://hooks.example.com/*], https://HOOKS.EXAMPLE.COM/pre loads: false"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "4719da1",
    title:
      "The redactor returned values that are not plain objects (class instances, another realm's objects, URLs, anything with a toJSON) unscanned, so their secrets reached the model",
    where:
      "{{src/middleware/redactor.ts|const walkSerialised = }}, {{src/middleware/redactor.ts|const text = contentText(value);}}, {{src/middleware/redactor.ts|value did not serialise the same way twice}}",
    repro:
      'a tool returning an ORM-like class instance { email, apiKey: "sk-ant-api03-…" }, an array of them, an object from vm.runInNewContext, a null-prototype object with a toJSON, or { link: new URL("https://x.test/?key=sk-ant-api03-…") }: under redaction({ strategies: { api_key: "block" } }) the model read the key in the clear in all five, while the same data as a plain object was refused (found by the middleware audit). Such a value\'s JSON is now scanned: clean, it is returned as it is (a Date stays a Date); with something found, as its redacted plain JSON form, and block kinds are reported so the tool gate refuses. 6545dee serialised such a value with a plain JSON.stringify, which throws on a cycle: the review of 6545dee found that a tool returning class instances with a cycle (an ORM entity graph, user.posts[0].author === user) was then always Rejected by redaction:output with \'Converting circular structure to JSON\', though the loop prints it with the cycle as "[Circular]" and it passed before 6545dee. Since e3c4738 such a value is serialised as the loop writes a tool result (contentText: BigInts as digits, a cycle as "[Circular]"), so the text scanned is the text the model reads: a clean graph passes as it is, one with a secret becomes its redacted plain form, and block kinds in it are still refused; a plain object with a cycle is still refused (fail closed). The review of e3c4738 (review G) found that contentText caught a throw and gave its placeholder, which scans clean, so the original was returned and the loop serialised it again: a getter that threw \'relation not loaded\' once sent the model {account: {credentials: {apiKey: <key>}}} unscanned under api_key: "block". Since 4719da1 a value whose text is not JSON is serialised once more (JSON.stringify, else String, as contentText does): one that throws again fails with its own error, one that reads differently throws \'value did not serialise the same way twice\', so redaction:output refuses the call as before e3c4738; a value whose JSON is nothing (a toJSON returning undefined) still passes as it is. A value that reads differently on each read without throwing is still scanned on one read only. What it cost on bytes is a finding of its own (fixed in 1e5116f and a6454af)',
    items: ["G6", "I4"],
    tests: [
      t("test/middleware/redactor-non-plain.test.ts", "from the model, and blocks it under block"),
      t("test/middleware/redactor-non-plain.test.ts", "returns a clean value it could not rebuild as it is (a Date stays a Date)"),
      t(
        "test/middleware/redactor-non-plain.test.ts",
        "scans a non-plain value with a cycle as the loop writes it, the cycle as [Circular]",
      ),
      t("test/middleware/redactor-non-plain.test.ts", "sends the model what the loop writes without redaction, the secret redacted"),
      t(
        "test/middleware/redactor-non-plain.test.ts",
        "refuses a value whose serialisation fails, even if it would serialise the next time (a relation not loaded yet)",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "80ab54c",
    title:
      "tracing put the raw session id on every run span as gen_ai.conversation.id, even with its redact option, while audit and the Chrome trace scrubbed it",
    where: "{{src/middleware/tracing.ts|attrs[GenAiAttr.conversationId] = idRedactor === undefined}}",
    repro:
      'sessionId alice.smith@example.com: the span "invoke_agent agent" had gen_ai.conversation.id "alice.smith@example.com" whatever redact said, while the audit lines and the Chrome trace held no raw address (found by the middleware audit). With redact given, the id is now hashed as audit hashes ids ([email:sha256:…], salted with redact.salt or a salt of this tracing\'s own, so stable within it); without redact it stays as it is, for joining spans with other data',
    items: ["I6"],
    tests: [
      t(
        "test/middleware/tracing.test.ts",
        "hashes the conversation id when told to redact, salted and stable within one tracing, as audit does",
      ),
      t("test/middleware/tracing.test.ts", "hashes the conversation id with the caller's salt"),
      t("test/middleware/tracing.test.ts", "keeps the conversation id as it is, for correlation, unless told to redact"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "cc256e9",
    title:
      "A tool's thrown error, and the reason of a call a hook refused by failing closed, reached the model unredacted: the tool-output hook was an after, which does not run on Failed",
    where:
      '{{src/middleware/redaction.ts|const toolFailure: PointHook<AgentPoints, "toolCall"> = }}, {{src/middleware/scrub-failure.ts|export const scrubFailure = }}, {{src/middleware/scrub-failure.ts|const copyOf = }}, {{src/middleware/scrub-failure.ts|Object.setPrototypeOf(copy, new Proxy(error,}}, {{src/middleware/scrub-failure.ts|const name = thrown.message ? undefined : scrub(String(thrown.name));}}, {{src/middleware/scrub-failure.ts|const scrubbedFailure = }}, {{src/middleware/redaction.ts|const reason = redactor.scrub(outcome.reason);}}',
    repro:
      "a Deploy tool throwing \"401 Unauthorized: invalid key sk-ant-api03-… for alice@example.com\": the model read \"Tool Deploy failed: 401 Unauthorized: invalid key sk-ant-api03-… for alice@example.com\" under the default strategy and under api_key: \"block\" alike, while the same text returned as an isError result was redacted (found by the middleware audit). In 6f22340 a new around hook, redaction:error, rewrote every match in the failure (block kinds labelled, as a failure cannot be refused): an Error kept its identity, class, name and fields with its message and stack rewritten (a frozen one became a copy of the same class); the outcome stays Failed, so outer retry and recover hooks still judge it by status. The review of 6f22340 found three faults. Rewriting in place changed the application's own error: one holding the same object (a shared request's promise, a client's lastError) found it rewritten after the agent ran ('GET …?key=[api_key:sha256:fefe007f4d61] -> 401'); since d7d7eae a scrubbed failure is a copy, a native Error with the original's prototype and own fields (name, status, code, cause), so instanceof and retryOn by status still work, and the thrown error is never changed (scrubFailure moved to scrub-failure.ts). An ANSI sequence or a BEL inside a key split it for the scan, and describe() dropped them only afterwards, so the model read 'invalid key sk-ant-api03-AbCdEfG[REDACTED:secret]' (part of the key, and as secret, so api_key: \"block\" did not apply); since 7d0da90 the message, the stack, a thrown string and the strings of a thrown object are cleaned as describe() cleans them before they are scanned. And a toolCall hook that failed closed became Rejected with its thrown message as reason, built outside every redaction hook, so the model read 'Tool call Deploy was rejected by policy: … threw: policy server 401 for key sk-ant-…' under any strategy (the same leak, which redaction:error never sees); since f7240ae redaction:unscanned scrubs a rejection's reason (block kinds labelled: a rejection cannot be refused), keeping by and, for the caller, cause. A rejection an inner hook made final (a failure closed in an after, a recover or an around after next) still cannot be changed from outside (R3); that an around failing closed before next() made its rejection final too is a finding of its own (fixed in a006ea9). A third round (review G) found three more faults. d7d7eae's copy was a new Error given the original's prototype and own fields, so getters backed by #private fields or a WeakMap threw or read undefined on it, and copying a DOMException threw (its name is brand-checked): redaction:error failed, and an outer retry judging by status turned a Failed into a Rejected after one run, even for an ordinary 'connect ECONNREFUSED 10.0.0.5:443'; since fcd68af the copy is a real Error (util.types.isNativeError, util.inspect shows the scrubbed text) carrying the original's own data fields, whose prototype is a Proxy reading everything else from the original with the original as receiver, so instanceof, #private, WeakMap and DOMException getters work and the original is never written (a frozen original gives a frozen copy; a method reading #private fields of this still fails on the copy). A failure with no message reached the model by its name, which was not scanned: Object.assign(new Error(''), { name: 'AuthError <key>' }), or a class whose name getter holds a key, read 'Tool Deploy failed: AuthError <key>'; since c1dcbb3 the name of a failure with no message is scanned as shown and the copy carries it scrubbed ('AuthError [REDACTED:api_key]'). And a thrown object with a cycle or a getter that throws made redaction:error fail, as it was serialised with JSON.stringify outside any guard (since 6f22340), so the call came back Rejected ('hook \"redaction:error\" failed in around on toolCall: threw: Converting circular structure to JSON'); since cc256e9 anything scrubFailure cannot read, copy or serialise (an error whose keys cannot be listed too, since fcd68af) becomes a plain Error carrying the scrubbed text describe writes, and the outcome stays Failed",
    items: ["G6", "K1"],
    tests: [
      t(
        "test/middleware/redaction-tool-error.test.ts",
        "keeps the secret in a thrown error's message from the model, whatever the strategy",
      ),
      t(
        "test/middleware/redaction-tool-error.test.ts",
        "leaves the outcome Failed with a scrubbed copy of the error, its class, name and status kept",
      ),
      t("test/middleware/redaction-tool-error.test.ts", "still lets an outer retry judge the failure by its status"),
      t("test/middleware/redaction-tool-error.test.ts", "never rewrites the error that was thrown: the application may hold it too"),
      t(
        "test/middleware/redaction-tool-error.test.ts",
        "scans the message as the model reads it, without the terminal escapes or controls inside a key",
      ),
      t(
        "test/middleware/redaction-tool-error.test.ts",
        "reads fields kept in #private fields or a WeakMap as the original does, so an outer retry still judges it by its status",
      ),
      t("test/middleware/redaction-tool-error.test.ts", "leaves a DOMException a failure, scrubbed, that still reads as one"),
      t(
        "test/middleware/redaction-tool-error.test.ts",
        "leaves a failure it cannot copy a failure, as a plain error with the scrubbed message",
      ),
      t("test/middleware/redaction-tool-error.test.ts", "scrubs the name of a failure with no message, which is what the model reads then"),
      t(
        "test/middleware/redaction-tool-error.test.ts",
        "leaves a thrown object it cannot write as JSON a failure (a cycle, a getter that throws)",
      ),
      t(
        "test/middleware/redaction-rejected-reason.test.ts",
        "keeps the secret in a failed-closed hook's message from the model, whatever the strategy",
      ),
      t("test/middleware/redaction-rejected-reason.test.ts", "keeps who rejected and, for the caller, the hook's failure as cause"),
      t("test/middleware/redaction-rejected-reason.test.ts", "scrubs a hook's own Reject reason too"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "2c31b16",
    title:
      "A step whose hook failed closed after the step ran counted as not having happened: an error hook's retry ran its tools again, and recover or fail dropped its messages",
    where: "{{src/agent/loop.ts|const record = (}}, {{src/agent/loop.ts|if (done !== undefined) break;}}",
    repro:
      'a Charge tool and a step hook with failMode "closed" whose after threw once: with an error hook answering retry the card was charged twice (["charged 100", "charged 100"]) and the history held only receipt #2; with recover the history was ["user: pay my bill", "assistant: Sorry, try again."] and steps 0, so the next turn\'s model did not know the card was charged; with fail, steps 0 (found by the agent audit). The step\'s messages, usage and count are now recorded before the error point decides, and it never runs again: retry goes on with the next step, recover ends the run after the step\'s messages, fail fails the turn with the step counted. A step rejected before its operation ran is retried from the start as before. A step a timed step hook gave up on while its tools ran is a finding of its own (fixed in 4f251d4)',
    items: ["A1", "E9"],
    tests: [
      t("test/agent/step-after-rejection.test.ts", "does not run the step's tools again when the error hook retries"),
      t(
        "test/agent/step-after-rejection.test.ts",
        "keeps the step's tool results in the history when the error hook recovers, and counts the step",
      ),
      t("test/agent/step-after-rejection.test.ts", "counts the step that ran in a turn the error hook fails"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "2284f81",
    title:
      "After the caller aborted a stream, the modelCall post-phase ran on a signal that never aborted: an after hook waiting on it held `done` forever and outlived the agent's turn",
    where: "{{src/agent/stream/through-stack.ts|const tellPostPhase = (): void => }}",
    repro:
      "a modelCall after hook waiting for ctx.signal or at most 3 s, the caller aborting at 30 ms: the hook finished at 3 036 ms with its signal never aborted, and done settled Completed then; waiting for its signal only, done was still pending after 2 s. In the agent the turn settled aborted at 81 ms while the hook ran until 3 082 ms, holding the process after sessionEnd; on generate the same hook was told at once, at 28 ms (found by the agent audit). Once a provider stream has ended, the caller's abort now aborts the run's signal one macrotask later: a post-phase whose hooks do not wait keeps its Completed outcome on the partial answer, and a hook still waiting is told at once and done settles Failed(RunAbortedError), as on generate",
    items: ["G4", "C2"],
    tests: [
      t(
        "test/agent/stream-post-phase-abort.test.ts",
        "tells an after hook waiting on its signal at once when the caller aborted the stream",
      ),
      t("test/agent/stream-post-phase-abort.test.ts", "tells an after hook already waiting when the caller aborts during the post-phase"),
      t("test/agent/stream-post-phase-abort.test.ts", "keeps the post-phase's answer on the partial text when its hooks do not wait"),
      t("test/agent/stream-post-phase-abort.test.ts", "tells such a hook in the agent too, as its aborted turn returns"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "e8a31da",
    title:
      "redaction accepted a bad salt, maxDepth, on or redactor and failed only at run time, for salt by letting the answer out unredacted",
    where:
      '{{src/middleware/redactor.ts|if (typeof salt !== "string")}}, {{src/middleware/redaction.ts|const onOption = }}, {{src/middleware/redaction.ts|const redactorOption = }}, {{src/middleware/redactor.ts|export const redactorFor = }}',
    repro:
      "redaction({ salt: 123 }) was accepted; on modelCall, where the hook then failed open, the answer completed with \"key sk-ant-api03-…\" in the clear, and on toolCall every call was refused with 'The \"data\" argument must be of type string … Received type number (123)'; maxDepth: -1 refused every tool call (\"nested deeper than -1 levels\"); on: { modeloutput: false } was taken as given; redactor: {} failed on first use with \"Cannot read properties of undefined (reading 'reduce')\" (found by the middleware audit). Each is now a TypeError naming the hook and the field when the factory is called (salt and maxDepth checked in createRedactor, so audit and tracing get it too). The review of 8461ccd found that the checks made inside createRedactor (salt, maxDepth, and strategy, strategies and detectors before them) always said 'redaction:', so redaction({ name: 'pii', salt: 1 }) threw 'redaction: salt must be a string' while on.x said 'pii: …'; since e8a31da redaction builds its redactor with redactorFor(name, options), so every refusal names the hook, and createRedactor's own messages are unchanged",
    items: ["J1", "A12"],
    tests: [
      t("test/middleware/redaction-options.test.ts", "refuses a salt that is not a string"),
      t("test/middleware/redaction-options.test.ts", "refuses a maxDepth that is not an integer of at least 1"),
      t(
        "test/middleware/redaction-options.test.ts",
        "refuses an `on` that is not an object of booleans for the four places, naming the hook",
      ),
      t("test/middleware/redaction-options.test.ts", "refuses a redactor without the methods redaction uses"),
      t("test/middleware/redaction-options.test.ts", "names the hook in every refusal of the redactor's own options"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "4264899",
    title:
      "metrics, tracing, chromeTraceRecorder and audit accepted a provider, meter, tracer or redact option they could not use, and failed on every run, or quietly took it for the defaults, instead",
    where:
      "{{src/middleware/telemetry-attrs.ts|export const providerOption = }}, {{src/middleware/metrics.ts|const meterOption = }}, {{src/middleware/tracing.ts|const tracerOption = }}, {{src/middleware/chrome-trace.ts|const redact = redactorOf(options);}}, {{src/middleware/telemetry-attrs.ts|export const redactOption = }}",
    repro:
      'metrics({ provider: 5 }) was accepted and then recorded no model-call metrics at all (an observer error on each call); tracing({ provider: 5 }) made no span (hookFailures 1, failOpen 1 per run); meter: {} or tracer: {} likewise; chromeTraceRecorder({ redact: { strategy: "x" } }) threw only from toJSON()/write(), when the trace was written (found by the middleware audit). Each is now a TypeError naming the hook and the field when the middleware is made, and the Chrome trace\'s redactor is built then. The telemetry review of 3118166 found a redact option of the wrong type still accepted: audit({ redact: "yes" }), tracing({ redact: true }) and chromeTraceRecorder({ redact: "yes" }) were read as empty redactor options, so the default detectors and, for tracing, a hashed conversation id the caller may not have meant; since 4264899 a redact that is none of a redactor, redactor options or false is a TypeError naming the hook and the field when the middleware is made (redactOption in telemetry-attrs.ts), and undefined, false, a redactor and an options object are accepted as before',
    items: ["J1", "A12"],
    tests: [
      t("test/middleware/metrics.test.ts", "refuses a provider or a meter it could not use when it is made, naming the hook and the field"),
      t(
        "test/middleware/tracing.test.ts",
        "refuses a provider or a tracer it could not use when it is made, naming the hook and the field",
      ),
      t("test/middleware/chrome-trace.test.ts", "refuses a redact option it could not use when it is made, not when the trace is written"),
      t(
        "test/middleware/audit.test.ts",
        "refuses a redact option that is not a redactor, its options or false when it is made, naming the hook and the field",
      ),
      t(
        "test/middleware/tracing.test.ts",
        "refuses a redact option that is not a redactor, its options or false when it is made, naming the hook and the field",
      ),
      t(
        "test/middleware/chrome-trace.test.ts",
        "refuses a redact option that is not a redactor, its options or false when it is made, naming the hook and the field",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "2698d12",
    title: "fallback took a redaction block for a provider failure and asked the backup model, whose answer then went out past the block",
    where: "{{src/middleware/fallback.ts|const isRefusal = }}",
    repro:
      'redaction({ strategies: { api_key: "block" } }) with fallback({ models: [backup] }): the primary\'s answer holding a key was refused with RedactionBlockedError, and the default when sent the call to the backup ("FallbackExhaustedError: every model failed: primary: model output contains api_key; blocked by redaction; backup: …"), whose answer was not scanned (see the next finding) (found by the middleware audit). The default when now excludes a guard\'s refusal, RedactionBlockedError as LimitExceededError already was, on generate and stream',
    items: ["B5", "G6"],
    tests: [
      t(
        "test/middleware/fallback.test.ts",
        "does not fall back from a redaction block: the primary's answer was refused, not its provider",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "7726f1e",
    title:
      "A fallback model's answer, and a tool result a hook outside the innermost one made, skipped redaction: the only output hooks were innermost, and fallback calls the backup model itself",
    where:
      '{{src/middleware/redaction.ts|const unscannedOutput: PointHook<AgentPoints, "modelCall"> = }}, {{src/middleware/redaction.ts|const unscannedResult: PointHook<AgentPoints, "toolCall"> = }}',
    repro:
      'redaction() with fallback({ models: [backup] }) and a failing primary: stack.run completed with { text: "the key is sk-ant-api03-…", model: "backup" }, and through createAgent the turn\'s text and the history sent back to the model held the key, block kinds included, on generate and stream (found by the middleware audit). A second hook, redaction:unscanned, at the input priority (outside guards, fallback and retry) now scans every completed answer the innermost hook did not let out itself (a fallback model\'s, one a hook\'s before replaced, one an after further out rewrote), redacts it or fails the call with RedactionBlockedError, and fails closed; an answer already scanned is not scanned again. Hooks between the two priorities still see such an answer as it was made. The review of f679bae found the same hole left on toolCall: only the innermost redaction:output scanned tool results, so a recover\'s Replace for a failed call, or an around\'s answer that never ran the tool (a cache), reached the model unredacted, even under block ("backup config: apiKey=sk-ant-…" under { api_key: "block" }); since 7726f1e redaction:unscanned is also a toolCall around at the input priority that fails closed, redacting such a result or Rejecting it on a block kind, and a result the inner hook passed is not scanned again. An outcome an inner hook made final (R3: a Replace after the tool ran) still cannot be changed from outside',
    items: ["G6", "A10"],
    tests: [
      t("test/middleware/redaction-fallback.test.ts", "redacts the backup's generated answer, its tool inputs too"),
      t("test/middleware/redaction-fallback.test.ts", "blocks the backup's generated answer holding a blocked kind"),
      t("test/middleware/redaction-fallback.test.ts", "redacts, or blocks, the backup's answer released to a stream's reader"),
      t(
        "test/middleware/redaction-fallback.test.ts",
        "keeps the backup's secret out of the agent's turn and the history sent back to the model",
      ),
      t("test/middleware/redaction-fallback.test.ts", "scans an answer a hook outside the innermost one rewrote after it was scanned"),
      t(
        "test/middleware/redaction-tool-unscanned.test.ts",
        "redacts what a recover hook answered for a failed call, and refuses it under block",
      ),
      t(
        "test/middleware/redaction-tool-unscanned.test.ts",
        "redacts a result an around hook answered without running the tool (a cache's)",
      ),
      t(
        "test/middleware/redaction-tool-unscanned.test.ts",
        "scans a result an after hook outside the innermost one rewrote after it was scanned",
      ),
      t("test/middleware/redaction-tool-unscanned.test.ts", "scans a result the tool returned only once"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "a62f028",
    title:
      "cleanText and stripTerminal took quadratic time on unterminated OSC/DCS openers, so a hook's output blocked the event loop far past the hook's timeout",
    where:
      "{{src/executors/sanitize.ts|const escapes =}}, {{src/executors/sanitize.ts|const afterLastTerminator = }} (string patterns are tried only before the last terminator), {{src/executors/sanitize.ts|const clean = stripTerminal(text).trim();}}",
    repro:
      "cleanText(\"\\u001b]\".repeat(n)) took 43 ms for 8 000 characters, 452 ms for 32 000 and 1 356 ms for 64 000 (the lazy body rescanned to the end of the text from every opener; the C1 form likewise); a UserPromptSubmit command hook with timeout 2 that printed 256 KiB of ESC ] blocked the event loop for about 40 s, so not even its own deadline could fire (found by the executors audit). da10480 ended a string's body at the next BEL, ESC or ST (or the end of the text), and made cleanText clean at most 4 × limit + 1024 characters. The review of da10480 found two regressions: an opener with no terminator now removed all the text after it, so a stray C1 character (U+009D, the mojibake of a closing quote) or a title escape missing its BEL turned a command hook's exit-2 reason into 'exited with code 2' and a JSON reason into 'Blocked: â' (and a terminated OSC with an inner ESC left its payload visible); and a short reason after about 48 KB of colour codes (3 016 visible characters) was cut off, the mark counting 6 992 raw characters where about 423 visible ones were lost. Since e444c23 a string runs from its opener to the first terminator, other escapes included, as before da10480, and string patterns are tried only before the text's last terminator, where each one succeeds, so cleaning stays linear (1 MiB of ESC ] or U+009D in about 30 ms) and cleans exactly what the pattern before da10480 cleaned; since a62f028 cleanText cleans the whole text (hook output is capped at 1 MiB where it is read) and then cuts it, the limit and the mark counting visible characters",
    items: ["D9", "D8", "C1"],
    tests: [
      t("test/executors/sanitize.test.ts", "cleans 256 KiB of unterminated"),
      t("test/executors/sanitize.test.ts", "cleans 1 MiB of mixed escapes, the most a command's stdout holds"),
      t("test/executors/sanitize.test.ts", "removes only the opener of an unterminated string, so the text after it stays"),
      t("test/executors/sanitize.test.ts", "keeps the text after a stray C1 character, such as the mojibake of a closing quote"),
      t("test/executors/sanitize.test.ts", "removes a terminated string whole, with any other escapes inside it"),
      t("test/executors/sanitize.test.ts", "cleans exactly what a lazy scan to the first terminator cleans, on random short texts"),
      t("test/executors/sanitize.test.ts", "keeps a command hook's exit-2 reason that follows an unterminated title escape"),
      t("test/executors/sanitize.test.ts", "keeps a short reason that follows 48 KB of colour codes: the cap counts visible characters"),
      t("test/executors/sanitize.test.ts", "counts the visible characters a cut dropped, not the escapes around them"),
      t("test/executors/sanitize.test.ts", "answers a command hook that prints 256 KiB of unterminated escapes within its timeout"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "6b007ba",
    title:
      "Hook-added context was lost when an around hook ran the run or step operation again: the first attempt had drained the context queue",
    where:
      "{{src/agent/context-queue.ts|restartable<I, T>(point}}, {{src/agent/session.ts|this.pending.restartable(beforeRun}}, {{src/agent/loop.ts|env.pending.restartable(mark}}",
    repro:
      "an around hook on run calling next() a second time: request 1 was [user: hello, system: Project uses pnpm., system: User is on call., system: step 0 context] and request 2 [user: hello, system: step 0 context], the sessionStart and userPrompt context gone for good once the turn completed; an around retry on step sent the step without its step hooks' context while the history recorded it as sent, and a step hook inside the retrying hook was recorded twice (found by the agent audit; 4a9bf7f had fixed this only for a retry decided by the error point). ContextQueue.restartable now wraps the run (session and sub-agent) and step operations: a later attempt gets back what the earlier one took and a hook's earlier text is withdrawn when it adds again",
    items: ["A3"],
    tests: [
      t("test/agent/rerun-context.test.ts", "sends the sessionStart and userPrompt context again to a run an around hook retries"),
      t("test/agent/rerun-context.test.ts", "sends a run hook's context once when the hook runs again inside the retrying around hook"),
      t("test/agent/rerun-context.test.ts", "sends a retried step with the context its hooks added before the around hook"),
      t(
        "test/agent/rerun-context.test.ts",
        "sends and records a step hook's context once when the hook runs again inside the retrying around hook",
      ),
      t("test/agent/rerun-context.test.ts", "sends a sub-agent's run hook context again to its run an around hook retries"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "c369843",
    title:
      "On the generate path nothing checked the model's response: a malformed one failed deep in the loop with an untyped TypeError filed under loop, NaN usage or text 42 completed the turn, and a tool call without input ran",
    where:
      '{{src/agent/wrap-model.ts|const malformed = outcome._tag === "Completed" ? notAResponse(outcome.value) : undefined;}}, {{src/agent/response-shape.ts|const isCall = }}, {{src/agent/compaction.ts|if (trigger === "auto" && budget === undefined) return messages;}}, {{src/middleware/fallback.ts|const providerAnswer = }}',
    repro:
      "a provider answering { text, toolCalls: [], finishReason } without usage, or a cache hook's Replace with an entry restored from JSON: the generated turn failed with \"Cannot read properties of undefined (reading 'inputTokens')\" sent to the error point as where: \"loop\" (so a hook retrying model failures was never asked), where the stream said \"the modelCall response is not a response (…)\" as a model failure; wrapModel().generate returned such a response unchecked; usage { inputTokens: NaN } completed with NaN usage and text 42 with turn.text 42; a tool call without input ran the tool (ran: [null]) and then crashed in the token count compaction ran on every step with no context budget (found by the agent audit). generateThroughStack now fails a settled answer that is not a response with the stream's TypeError as a model failure, both paths require each tool call's string id and name and object input, a provider's answer without token totals gets them estimated (usageEstimated) as a stream's does, and compaction counts tokens only with a budget or on demand. The review of c68867f found the estimate given to the primary's answer only: the same answer without usage from fallback's backup, which fallback asks itself, failed the turn with 'the modelCall response is not a response (…)', on generate, on a stream and through wrapModel().generate; since c369843 fallback passes a backup's answer through withEstimatedUsage, marked usageEstimated, and one that is not an answer at all still fails the call",
    items: ["A7", "G1", "H5"],
    tests: [
      t("test/agent/model-step.test.ts", "call whose provider answers a tool call without input as a model failure"),
      t(
        "test/agent/model-step.test.ts",
        "fails a generated call whose cache hook answers an entry without usage as a model failure, with the TypeError a stream gives",
      ),
      t("test/agent/model-step.test.ts", "lets an error hook that retries model failures retry a malformed response"),
      t(
        "test/agent/model-step.test.ts",
        "estimates the usage a provider left out (or gave as NaN) on generate, as on a stream, and says it did",
      ),
      t(
        "test/agent/wrap-model.test.ts",
        "throws from generate the TypeError its stream ends with when a cache hook answers an entry without usage",
      ),
      t("test/agent/compaction.test.ts", "counts no tokens when no context budget is set, and counts them for a manual compaction"),
      t("test/middleware/fallback-usage.test.ts", "completes the turn with the usage estimated, as the same answer from the primary does"),
      t("test/middleware/fallback-usage.test.ts", "is answered by wrapModel's generate, marked as estimated"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "b66a8ac",
    title: "An identical handler in two settings files ran twice when the groups' matchers differed",
    where:
      "{{src/executors/settings-load.ts|entries[first] = }}, {{src/executors/settings-rules.ts|export const anyGroupMatcher = }}, {{src/executors/settings.ts|anyGroupMatcher(entry.matchers}}",
    repro:
      "the same command handler under matcher Bash in ~/.claude/settings.json and Bash|Edit in the project's settings loaded as two hooks (PreToolUse:command:echo and PreToolUse:command:echo #2, duplicates []) and ran twice on one Bash call: the de-duplication key included the group's matcher (found by the executors audit). Handlers are now the same when their event and fields (if included) are; the first copy is kept, matching what any copy's matcher matches (no matcher meaning every subject), and the others are reported in duplicates, as the Claude Code reference says. 819f279 merged the matchers' text into one (orMatchers: name lists joined, otherwise one RegExp alternation); the review of 819f279 found that the merged text could match more than the union or not load: back-references renumbered ('(x)\\1' with '(y)\\1' matched 'y'), a group name used in both files did not compile and the error blamed the first file, two matchers under the 1024-character limit exceeded it together, and an invalid matcher was accepted once merged. Since 8290a10 loadClaudeSettings keeps every group's matcher with its file and pointer (HandlerEntry.matchers), and since b66a8ac fromClaudeSettings compiles each on its own, checked at its own pointer, and ORs them (anyGroupMatcher); orMatchers stays as the readable text of the union",
    items: ["J5"],
    tests: [
      t(
        "test/executors/settings-load.test.ts",
        "runs once when their matchers differ, on what either matcher matches, and the second copy is reported",
      ),
      t("test/executors/settings-load.test.ts", "reads a name list and a RegExp each in its own grammar when it joins them"),
      t("test/executors/settings-load.test.ts", "runs on every tool when one of the copies has no matcher"),
      t("test/executors/settings-load.test.ts", "reads each copy's back-references within that copy, as when it stands alone"),
      t("test/executors/settings-load.test.ts", "loads two copies whose matchers use the same group name"),
      t("test/executors/settings-load.test.ts", "loads two copies each under the 1024-character limit, though together they are over it"),
      t("test/executors/settings-load.test.ts", "refuses an invalid matcher in either copy, naming that copy's file and pointer"),
      t("test/executors/settings-rules.test.ts", "keeps each matcher's back-references and group names to itself"),
      t(
        "test/executors/settings-rules.test.ts",
        "checks each matcher on its own: two under the length limit pass, an invalid one is named by its own file and pointer",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "7fe2897",
    title:
      "continue: false from a PreToolUse or PostToolUse hook, and a prompt hook's ok: false, only refused one call: the turn went on, later tools ran, and the model read stopReason",
    where:
      '{{src/executors/protocol.ts|export const endsTurn}}, {{src/executors/turn-stop.ts|export const turnStops = () => }}, {{src/executors/turn-stop.ts|const run: Hook<RunInput, RunResult, "gate">}}, {{src/executors/protocol.ts|refused the call and asked to stop the turn (continue: false)}}',
    repro:
      'a scripted model calling Bash make, then Bash make deploy, then answering, and a command hook printing { "continue": false, "stopReason": "Build failed; … (secret note for the user only)" }: on PostToolUse both make and make deploy ran and the model was asked 3 times, and its tool message read "Tool call Bash was rejected by command:echo: Build failed; …", though the reference says stopReason is not shown to Claude; a settings prompt hook whose judge answered ok: false completed the turn after 3 model requests, continueOnBlock being accepted and ignored (found by the executors audit). In d9b3e81 the call was refused with a neutral reason (\'hook "X" stopped the turn (continue: false)\'), stopReason went to the user as a notice, and fromClaudeSettings added a step hook (claude-settings:turn-stop) that ends the run before its next model call (finishReason stopped-by-guard, stoppedBy.kind "hook"); continueOnBlock: true only refuses the call. The review of d9b3e81 found the stop lost when no step followed: with maxSteps: 1, or on a stack without a step point, the turn ended as max-steps without stoppedBy and the entry stayed in a map capped at 1000; since 3f97aaa a run hook (claude-settings:turn-stop) keeps a stop only for a run going on, ends a run that settles with its stop unread as stopped-by-guard with stoppedBy { reason, by, kind: "hook" }, and drops the entry however the run settled (a call outside any run keeps nothing). It also found the neutral reason false where nothing ends the turn (a commandHook mounted by hand: the model read that the turn stopped, went on, and ran the next command); since 7fe2897 the model reads \'hook "X" refused the call and asked to stop the turn (continue: false)\', true either way. The other calls of the same step are a finding of their own (fixed in 7f92973, then 54a8079 and d30f4d2)',
    items: ["A16", "F1", "K1"],
    tests: [
      t("test/executors/continue-false.test.ts", "on PreToolUse: the call is refused, no later tool runs, no other model call is made"),
      t("test/executors/continue-false.test.ts", "on PostToolUse: the tool that ran is the last one"),
      t("test/executors/continue-false.test.ts", "stopReason is told to the user and never written where the model reads it"),
      t("test/executors/continue-false.test.ts", "ends the turn by default (continueOnBlock: false), with the judge's reason for the user"),
      t("test/executors/continue-false.test.ts", "with continueOnBlock: true only refuses the call, and the model adjusts and goes on"),
      t("test/executors/continue-false.test.ts", "still ends the turn as stopped by the hook, with maxSteps: 1"),
      t("test/executors/continue-false.test.ts", "is forgotten when the run settles: a later call under the same run id is not refused"),
      t("test/executors/protocol.test.ts", "continue: false from a hook mounted by hand never tells the model the turn stopped"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "9b3b509",
    title: "A process a hook put in the background was SIGKILLed the moment the hook exited, even after it let go of the pipes",
    where: '{{src/executors/process.ts|if (cutShort()) killGroup(proc.pid!, "SIGKILL");}}',
    repro:
      "a SessionStart command hook running nohup sleep 30 >/dev/null 2>&1 & and exiting 0 completed in 16 ms, and the background process was dead when the hook returned: the whole process group was killed on exit, whether or not anything still held stdout or stderr, so a hook starting a dev server or a watcher had it killed at once, which Claude Code leaves running (found by the executors audit). On a clean exit the pipes now get the drain (at most 200 ms) to close, and the group is killed only if something still holds them (D4's leftover grandchild), or on timeout, abort or a stdout overflow",
    items: ["D4"],
    tests: [
      t("test/executors/process.test.ts", "leaves running a process the hook put in the background once that process let go of the pipes"),
      t("test/executors/process.test.ts", "does not wait for a grandchild in a session of its own (setsid) that keeps stdout open"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "c2525af",
    title:
      'An around hook whose next() was still pending when its run settled got Failed(NextMisuseError "run already settled"), not the run\'s outcome',
    where:
      "{{src/core/frame.ts|export const settledUnder = }}, {{src/core/run-context.ts|this.settledWith ??= outcome;}}, {{src/core/stack.ts|this.run.settledWith = outcome;}}",
    repro:
      "the caller aborting a run with an around hook waiting on next(): the run settled Failed(RunAbortedError) but the hook's next() gave Failed(NextMisuseError run already settled); in the agent after an abort every step, modelCall and toolCall around saw NextMisuseError, a misuse R4 keeps for a next() called concurrently or after its hook settled (found by the agent audit). ca466f8 made such a next() resolve to run.outcome, where the end of the run's chain leaves it (both around paths), so a hook inside one that answered without waiting gets that answer; 971e45d made a caller's abort and the run's deadline record their Failed(RunAbortedError) there too (change and tests by the stream/core fix helper). But run.outcome is the outermost frame's working field, which a chain still unwinding writes after the run settled: a hook that aborted the caller's signal and then answered Replace(\"x\") made the caller get Failed(RunAbortedError) and a hook inside Completed(\"x\") (found by the review of those commits); c2525af keeps the outcome the run settled with once, in run.settledWith (RunContext.end, and GuardedRun.abort for the abort and the deadline). A next() a hook first called after the run settled was still a misuse until the next session's audit (see its finding): it resolves to the run's outcome too since then",
    items: ["A6", "C2"],
    tests: [
      t(
        "test/core/around-pending-next.test.ts",
        "gets the run's own Failed(RunAbortedError) when the caller aborts, not a NextMisuseError",
      ),
      t("test/core/around-pending-next.test.ts", "gets the run's own Failed(RunAbortedError) when the run's deadline passes"),
      t(
        "test/core/around-pending-next.test.ts",
        "gets Failed(OperationAbandonedError), not the answer of a hook outside that did not wait for it",
      ),
      t("test/core/around-pending-next.test.ts", "gets what the caller got, not what a hook outside answered after the run settled"),
      t("test/core/around-pending-next.test.ts", "still refuses a next() called after the hook itself settled, as a misuse"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "0e81628",
    title: "audit: a toJSON in metadata got around scrubbing, and one metadata getter that threw lost the run's whole audit record",
    where:
      '{{src/middleware/audit.ts|if (typeof value === "function") return "[function]";}}, {{src/middleware/audit.ts|const guarded = }}',
    repro:
      'audit({ metadata: ["user"] }) with user { name, toJSON: () => ({ email: "alice@example.com" }) } wrote metadata {"user":{"email":"alice@example.com"}} (scrubDeep kept the function and JSON.stringify called it); a metadata field whose getter threw wrote no run line and no decisions (stats observerErrors 1) (found by the middleware audit). Functions are now written as "[function]" and a field, or part of one, that throws when read as "[unreadable]", the other fields and the decisions kept; with redact: false a field is serialised up front inside the same guard',
    items: ["I6", "I4"],
    tests: [
      t("test/middleware/audit.test.ts", "writes functions in metadata as a marker, so a toJSON cannot put back what was scrubbed"),
      t(
        "test/middleware/audit.test.ts",
        "writes a metadata field it cannot read as a marker, and keeps the run's decisions and the other fields",
      ),
      t("test/middleware/audit.test.ts", "keeps the run's line when a metadata field it writes as is cannot be serialised (redact: false)"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "97681ea",
    title:
      "The built-in detectors were ASCII-only: invisible characters inside a key, no-break spaces in card and phone numbers, and international addresses got past them",
    where:
      "{{src/middleware/visible-text.ts|export const readingVisible}}, {{src/middleware/detectors.ts|const spacedLetter = }}, {{src/middleware/detectors.ts|const topLevelDomain = }}",
    repro:
      'an API key with zero-width joiners every four characters, AKIA… with a zero-width space, and alice<U+200B>@example.com with one passed whole, even under block; a soft hyphen inside a key turned it into a `secret`, getting around api_key: "block"; card 4111 1111 1111 1111 and +1 415 555 0100 written with no-break (or narrow no-break) spaces passed; alice@bücher.de and info@пример.рф passed, and jürgen@example.de became jü[REDACTED:email] (found by the middleware audit). Every built-in detector now scans a view without default-ignorable code points and with Unicode spaces read as spaces, its matches mapped back so the invisible characters inside are redacted with them; email takes letters and digits of any script and punycode domains; a detector\'s window counts visible characters so streamed and whole-text redaction still agree. Custom pattern()s are unchanged (see the open limitation on full-width forms). The review of f9dd41c found that a top-level domain of letters of any script took in a word written right after the address: 이메일은 bob@example.com입니다 was redacted with its Korean particle (이메일은 [REDACTED:email]), so under hash the same address got another pseudonym, and bob@example.comили likewise; since 97681ea a top-level domain in Latin, Cyrillic, Greek, Hebrew, Arabic, Devanagari, Thai, Hangul, Han, Hiragana or Katakana ends where the script changes (Han, Hiragana and Katakana apart), and IDN addresses are still found whole. Amounts grouped by no-break spaces read as phone numbers are a finding of their own (fixed in a55e9a9)',
    items: ["I3", "G6"],
    tests: [
      t(
        "test/middleware/detectors.test.ts",
        "find a key with zero-width characters, word joiners, byte order marks or soft hyphens inside, as one api_key covering them",
      ),
      t("test/middleware/detectors.test.ts", "read no-break, narrow no-break and thin spaces as spaces"),
      t("test/middleware/detectors.test.ts", "find internationalised addresses whole"),
      t("test/middleware/detectors.test.ts", "keep a key an api_key when a soft hyphen is inside it, so a block on api_key blocks it"),
      t(
        "test/middleware/visible-text.test.ts",
        "come out of a stream as out of the whole text, split at every index and one character at a time",
      ),
      t("test/middleware/visible-text.test.ts", "is blocked whole under api_key: block, generated or streamed"),
      t("test/middleware/detectors.test.ts", "end an address where the script changes after its top-level domain"),
      t("test/middleware/visible-text.test.ts", "a word written right after an address out of it, in the whole text and in a stream"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "700557c",
    title: "A settings event named __proto__ vanished without a word: decoding the hooks record assigned it as the prototype",
    where: "{{src/executors/settings-schema.ts|const decodeWithProtoEvent = }}",
    repro:
      'fromClaudeSettings(JSON.parse(\'{"hooks":{"__proto__":[{"hooks":[…]}]}}\')) returned hooks: [] and unused: [], while the same shape under constructor was reported as not a Claude Code hook event (found by the executors audit). It is now reported in unused as "__proto__ is not a Claude Code hook event", and its groups are validated with /hooks/__proto__/… pointers',
    items: ["I1", "J1"],
    tests: [
      t(
        "test/executors/settings.test.ts",
        "reports an event named __proto__ in a parsed settings object as unused, like any unknown event",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "a1ef3d6",
    title: "SessionEnd hooks did not share their 1.5-second budget, and a per-hook timeout on SessionEnd was not capped at 60 s",
    where:
      "{{src/executors/external.ts|export const sessionEndBudgetMs = }}, {{src/executors/external.ts|export const resolveTimeoutMs = }}, {{src/executors/settings-load.ts|const withSessionEndBudget = }}",
    repro:
      "three SessionEnd command hooks running sleep 10 held the session's close 4 535 ms (1.5 s each, one after another), and timeout: 600 on SessionEnd gave hook.timeoutMs 602 500, where the reference gives SessionEnd hooks one shared budget raised to the longest per-hook timeout, up to 60 s (found by the executors audit). a1ef3d6 made the SessionEnd hooks of one run share a clock started by the first of them (a hook whose time was gone was not run); since 964a7ef they run side by side instead, each within its own timeout inside the budget (see the finding on SessionEnd hooks run one after another). The budget is 1.5 s, raised by fromClaudeSettings to the longest per-hook timeout up to 60 s, or CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS; no SessionEnd timeout exceeds 60 s",
    items: ["C4", "C5"],
    tests: [
      t("test/executors/external.test.ts", "share one 1.5-second budget: three that hang end the session in about 1.5 s, not 4.5 s"),
      t(
        "test/executors/external.test.ts",
        "get a budget raised to the longest per-hook timeout in the settings, hooks without one included",
      ),
      t("test/executors/external.test.ts", "never wait more than 60 seconds, whatever timeout a hook sets"),
      t("test/executors/external.test.ts", "take their budget from CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS when it is set"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "51d160d",
    title: "TurnResult.usage left out what a streamed call spent when the stream failed part-way or the caller aborted it",
    where:
      "{{src/agent/model-step.ts|const spent = (outcome: Outcome<ModelResponse>): Usage | undefined => }}, {{src/agent/model-step.ts|const onAbort = (): void => }}, {{src/agent/model-step.ts|if (!sent && stream === opened) streamed.messages = undefined;}}",
    repro:
      "a stream failing after 200 characters and retried by an error hook reported 1000/1 tokens (the retry's only) instead of 1002/51; one that failed the turn reported 0/0 though its ModelStreamError carried 2/50; a turn the caller aborted mid-stream reported 0/0 while a modelCall after hook saw 2/4 (the turn settles on the abort before the call's post-phase hands back its partial answer), as did an abort during after hooks once the stream had ended (found by the agent audit; fixed in 1c6ee27). 7fea151 made the abort's count and the outcome's read and set one flag, so an abort in the microtask between them cannot count a stream twice; 99358cd counts an aborted stream only once the provider's stream opened, so an abort while a start was failing or connecting no longer adds the request's estimated input tokens. A stream that produced nothing but an estimate is still refunded. The review of 1c6ee27 found that the last stream opened stayed noted after it failed having sent nothing: a caller's abort once fallback's backup had answered (while an outer after hook still ran) reported the failed primary's estimate (12/0) as TurnResult.usage, and so did an abort while retry waited to open its next stream, though the agent's own tally and budget refund such a stream; since 51d160d such a stream is forgotten (0/0 in both cases). An answer a hook gave instead of a stream (fallback's backup, a cache's Replace) is still counted only when the call hands it back, which an abort during the post-phase prevents",
    items: ["G4", "H2"],
    tests: [
      t("test/agent/model-step.test.ts", "counts a stream that failed part-way and was retried by an error hook, with the retry's answer"),
      t("test/agent/model-step.test.ts", "counts a stream that failed part-way and failed the turn"),
      t("test/agent/model-step.test.ts", "counts a stream once when a modelCall recover hook answers with what it had streamed"),
      t("test/agent/model-step.test.ts", "refunds a stream that failed before it produced anything, whose usage is only an estimate"),
      t("test/agent/model-step.test.ts", "counts what a stream had streamed when the caller aborted it part-way"),
      t(
        "test/agent/model-step.test.ts",
        "counts the usage a provider reported when the caller aborts after its stream ended, while after hooks still run",
      ),
      t(
        "test/agent/abort-usage-after-fallback.test.ts",
        "does not count the failed primary stream's estimate when fallback's backup answered and an after hook still runs",
      ),
      t(
        "test/agent/abort-usage-after-fallback.test.ts",
        "does not count the failed attempt's estimate when the caller aborts while retry waits to open the next stream",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "3da268c",
    title: "A queued prompt's cancel was not honoured until the turn before it ended",
    where: "{{src/agent/session.ts|const untilTurn = }}",
    repro:
      "a second prompt sent while turn 1 ran and cancelled at 54 ms resolved aborted at 1 507 ms, when turn 1 completed: the queued turn looked at its signal only once the earlier turn ended (found by the agent audit). The wait now races the prompt's (and the session's) signal: the prompt resolves { status: \"aborted\", error: RunAbortedError on userPrompt } as soon as it aborts, runs no hook and leaves no listener; the next prompt still waits for the earlier turn, and turn numbers follow prompt order. The listeners the waiting prompts kept on the user's session signal are a finding of its own (fixed in de65849)",
    items: ["C2"],
    tests: [
      t(
        "test/agent/queued-prompt-abort.test.ts",
        "is aborted at once when its signal aborts, running no hook, leaving no listener, and later prompts still run in order",
      ),
      t("test/agent/queued-prompt-abort.test.ts", "is aborted at once when the session's signal aborts"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "5e8a740",
    title: "claude-hook blocked (exit 2) every event it does not drive, though no guard was evaluated",
    where:
      "{{src/executors/bridge-event.ts|export class UndrivenEventError}}, {{src/cli/claude-hook.ts|if (error instanceof UndrivenEventError)}}, {{src/cli/claude-hook.ts|const afterExitOne = }}",
    repro:
      'claude-hook answered { "hook_event_name": "PermissionRequest", … } with exit 2 ("agent-onion does not drive PermissionRequest events"), which denies the permission; registered under PostToolBatch, TaskCreated, WorktreeRemove or an event added later it would refuse each of them with nothing checked (found by the executors audit). Such an event now exits 1, Claude Code\'s non-blocking error, with "…; nothing was checked, so it goes ahead" on stderr; an event that cannot be read, or a module that does not load, still exits 2. The review of 66dcde8 found that message false on WorktreeCreate, where any non-zero exit fails worktree creation (its hook replaces git\'s and must print the new path), and misleading on PermissionRequest and PermissionDenied, where \'goes ahead\' read as a granted permission; since 5e8a740 WorktreeCreate is told that worktree creation fails and not to register agent-onion there, the other documented events that Claude Code goes on as without this hook, and an unknown event only that exit 1 is a non-blocking error on most events; the exit code stays 1',
    items: ["D7", "B4"],
    tests: [
      t(
        "test/cli/claude-hook.test.ts",
        "lets an event it does not drive go on as without it (exit 1, Claude Code's non-blocking error) and says why on stderr",
      ),
      t("test/cli/claude-hook.test.ts", "still blocks with exit 2 on an event it cannot read"),
      t(
        "test/cli/claude-hook.test.ts",
        "says that worktree creation fails on WorktreeCreate, where any non-zero exit fails it and the hook must print a path",
      ),
      t("test/cli/claude-hook.test.ts", "does not promise what an event it does not know will do"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "b8377a5",
    title: "A sub-agent with more than ten parallel tool calls made Node warn of an EventTarget leak on the library's own tool-call signal",
    where: "{{src/agent/subagent.ts|sharedLink(options.signal)}}",
    repro:
      "a sub-agent whose model asked for 12 parallel Read calls under a plain caller signal printed MaxListenersExceededWarning: Possible EventTarget memory leak detected. 11 abort listeners added to [AbortSignal], from callTool: all its runs listened to the tool call's own signal, which has Node's default limit and which the user cannot reach (found by the agent audit; 4794428 had fixed this for a turn's signal). A sub-agent now follows that signal through a signal of its own with no listener limit, disposed when its run settles; the caller's abort still stops it",
    items: ["A15", "C2"],
    tests: [
      t(
        "test/agent/subagent-listeners.test.ts",
        "run a dozen at once without Node's leak warning on the signal of the tool call that started it, and leave nothing listening",
      ),
      t("test/agent/subagent-listeners.test.ts", "stop when the caller aborts while the sub-agent runs"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "3fa92ae",
    title:
      "A stop block on the last allowed step left its feedback in the history, unread, and the next turn sent two user messages in a row",
    where: "{{src/agent/loop.ts|if (unread !== undefined) messages = [...messages, unread];}}",
    repro:
      'a stop hook that blocked once ("Run the tests first") with maxSteps: 1: the run ended at max-steps with "user: Stop hook feedback: …" last in its messages, which no model call had read, and the next turn sent it and "user: thanks" as two user messages in a row (found by the agent audit). The feedback now joins the conversation only when a step is left to read it',
    items: ["A16"],
    tests: [
      t("test/agent/stop-feedback-max-steps.test.ts", "is left out of the history when no step is left to read it"),
      t("test/agent/stop-feedback-max-steps.test.ts", "still reaches the next step when one is left"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "3a4b5ff",
    title: "SessionEnd hooks ran one after another, so a hook that hung kept a later cleanup hook from running",
    where:
      "{{src/executors/external.ts|const sideBySide = }}, {{src/executors/external.ts|hook.around = sideBySide(}}, {{src/executors/external.ts|if (failsClosed) await inside.catch(}}, {{src/executors/external.ts|const sessionEndClosed = }}",
    repro:
      "Claude Code runs all matching SessionEnd hooks in parallel, each within its own timeout; ours ran in turn and, since a1ef3d6, on a clock shared by ctx.callId in a module-level map, each one's deadline counted from the first one's start: a hook that hung (sleep 10, default 1.5 s budget) left a later touch cleaned 'not run' (1 547 ms, cleanup hook ran: false, where it ran before a1ef3d6), and a 1-second hook after a 2-second one under a 5-second budget was skipped; the skip was only a fail-open failure on an observe point, so nothing told the user (found by the review of a1ef3d6). Each SessionEnd hook is now an around on sessionEnd that starts its own work, lets the hooks inside it start theirs and answers once its own is done, within its own timeout, which resolveTimeoutMs keeps inside the shared budget; the module-level map is gone (R14), and a hook that fails closed lets the hooks inside it finish before the run settles. The review of 964a7ef found that a failing hook waited for the hooks inside it on its own timer (its timeout plus 1.5 s): under an outer hook timing out at 1 s, an inner cleanup needing 3 s of its 5 s was killed after 2.6 s; and a hook failing open waited too, so one exiting 1 was recorded as 'timed out'. Since 3a4b5ff a hook failing closed waits for the hooks inside it within the SessionEnd budget (its core deadline allows the longest budget, 60 s or CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS, each inner hook still within its own timeout), and one failing open does not wait (the core waits for the inside itself, untimed), its failure recorded as what it did ('threw: exited with code 1')",
    items: ["C1", "C4"],
    tests: [
      t("test/executors/external.test.ts", "run side by side, as Claude Code runs them: a cleanup hook after one that hangs still runs"),
      t(
        "test/executors/external.test.ts",
        "each have their own timeout inside the budget: a 1-second hook after a 2-second one still runs",
      ),
      t("test/executors/external.test.ts", "let the hooks after one that fails closed finish before the session's close settles"),
      t(
        "test/executors/external.test.ts",
        "let the hooks after one that fails closed finish even when they need longer than its own timeout, which names the failure",
      ),
      t(
        "test/executors/external.test.ts",
        "record a hook failing open as what it did, not as a timeout, while a slower hook after it runs",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "4f251d4",
    title: "A step a timed step hook gave up on while its tools ran was not told, and the error hook's retry ran its tools again",
    where: "{{src/agent/loop.ts|const stepEnv = }}, {{src/agent/loop.ts|done = await ranBefore();}}",
    repro:
      "a step around hook with timeoutMs: 300 and failMode \"closed\", a model calling Charge (fast) and Slow (1 s) in one step, and an error hook answering retry: the card was charged twice ([\"charged 100\", \"charged 100\"], 3 model requests; four times with a slow tool that always timed out), and the first run's Slow ended a second after the turn completed, its signal never aborted: runStep never got the step operation's signal, and the step was recorded only once its operation returned, so 2c31b16's 'never run again' did not cover a step given up on mid-way (found by the review of 2c31b16; the defect is older). The step's model call and tool calls now follow the operation's ctx.signal (which follows the turn's) through a signal of our own without a listener limit, disposed when the step settles; a rejected step is waited for (its signal aborted, so what it runs settles at once) and, if its model answered, recorded with its tool results (an abandoned call's as an error result), so retry goes on from it. A step given up on before its model answered ran no tool and still runs again from the start",
    items: ["C3", "C4", "E9"],
    tests: [
      t(
        "test/agent/step-given-up-on.test.ts",
        "tells the step's running tools, and does not run the tools that ran again when the error hook retries",
      ),
      t(
        "test/agent/step-given-up-on.test.ts",
        "runs the step again when it was given up on before its model answered (no tool ran), and tells the abandoned model call",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "efc6a4e",
    title: "After a tool hook asked to stop the turn, the other tool calls of the same step still ran",
    where:
      '{{src/executors/turn-stop.ts|const calls: Hook<ToolCall, ToolResult, "gate">}}, {{src/executors/turn-stop.ts|return stop === undefined ? action : refusal(stop);}}, {{src/executors/turn-stop.ts|refused === undefined && !ran}}, {{src/executors/turn-stop.ts|const stopOf = }}',
    repro:
      "since d9b3e81 a stop asked for with continue: false (or a prompt hook's ok: false) was acted on only by the step hook at the next step, but a step's tool calls run in parallel: the model asking for make and make deploy in one step, and a PreToolUse hook answering continue: false at once for make and allowing the other after 0.3 s, make deploy ran ('stopped-by-guard | model requests: 1 | tools ran: [ make deploy ]'), where the reference says Claude 'stops processing entirely' (found by the review of d9b3e81). fromClaudeSettings now adds an innermost toolCall hook (claude-settings:turn-stop, Priority.last) that refuses every call of a run that asked, tools no settings hook matches included, and a watched hook's answer other than a Reject in such a run becomes a refusal; the turn-stop code moved from settings.ts to turn-stop.ts. The review of 7f92973 found two faults. A PostToolUse hook's allow was turned into a refusal too, so a sibling call that got past its PreToolUse hook before the stop ran, with its side effects, and was then recorded as 'rejected … refused: hook asked to stop the turn', its real output lost; since 54a8079 only calls yet to run (the before phase) are refused, and a call that ran keeps its result (a PostToolUse hook's own stop is still recorded). And the stop was looked up by the call's own run id only, while a sub-agent's is '<parent>/<name>:<toolCallId>', so a sub-agent running beside the call that asked kept running tools: its next step's Bash call ran after the parent's stop; since d30f4d2 a call is also refused when a run its id descends from (a prefix up to a '/') asked, while a sub-agent's own stop still ends only the sub-agent and the parent's calls allowed after it run; the final review found a sub-agent of a stopped run still asking its model until its step limit (7 paid calls): its step hook looked up only its own run id, and now a sub-agent ends before its next model call too (efc6a4e)",
    items: ["A16", "A15"],
    tests: [
      t(
        "test/executors/continue-false.test.ts",
        "are refused when their hook allows them after the stop was asked: make deploy does not run",
      ),
      t("test/executors/continue-false.test.ts", "are refused even when no settings hook matches their tool"),
      t("test/executors/turn-stop.test.ts", "keeps its real result: a PostToolUse hook's allow is not turned into a refusal"),
      t("test/executors/turn-stop.test.ts", "a sub-agent the run started runs no tool call after the run asked to stop"),
      t("test/executors/turn-stop.test.ts", "a sub-agent the run started asks its model nothing more after the run asked to stop"),
      t("test/executors/turn-stop.test.ts", "a sub-agent's own stop does not refuse its parent's calls"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "de65849",
    title: "Queued prompts each listened on the user's session signal, so a dozen of them made Node warn of a leak on it",
    where:
      "{{src/agent/session.ts|class SessionSignal}}, {{src/agent/session.ts|combined = either(this.signal.acquire(), options.signal);}}",
    repro:
      "since 3da268c a queued prompt races its own signal and the session's while it waits, so each one kept an abort listener on the signal given to agent.session() until its turn ended: a session with { signal } and Promise.all of 12 session.prompt() calls, no hooks, printed MaxListenersExceededWarning: Possible EventTarget memory leak detected. 11 abort listeners added to [AbortSignal], on a signal the README says we do not raise the limit of; before 3da268c only the running turn listened (found by the review of 3da268c). A session-owned signal without a listener limit now follows the user's while any prompt waits or runs (one listener of ours), and lets go when the last one ends; a prompt's own signal still aborts it at once while it waits",
    items: ["A15", "C2"],
    tests: [
      t(
        "test/agent/session-signal-listeners.test.ts",
        "takes a dozen queued prompts with one listener on that signal, no leak warning, and none left once they ended",
      ),
      t("test/agent/session-signal-listeners.test.ts", "still aborts the running turn and the queued prompts when that signal aborts"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "8f1e281",
    title:
      "Amounts grouped in thousands by no-break or narrow no-break spaces, as French, Russian and Polish write them, were redacted as phone numbers or cards",
    where:
      "{{src/middleware/detectors.ts|const thousands = new RegExp(}}, {{src/middleware/detectors.ts|const threeByThree = new RegExp(}}, {{src/middleware/visible-text.ts|export const digitGroupSpace = }}",
    repro:
      "since f9dd41c read no-break and narrow no-break spaces as spaces, every amount of 100 000 000 or more that Intl.NumberFormat writes in fr-FR (grouped by U+202F), ru-RU or pl-PL (U+00A0) was redacted as a phone number: 2 000 of 2 000 random amounts between 1e8 and 1e12 in each locale, 0 before; 'В 2023 году было 1 234 567 890 123 заявок' became [REDACTED:phone], and 'Le montant est de 4 111 111 111 111 111 €.' [REDACTED:credit_card] (found by the review of f9dd41c). The view now reads the three spaces locales group digits with (no-break, narrow no-break, thin) as one no-break space, the card and phone patterns take it as a separator, and a candidate that is exactly 1 to 3 digits then groups of three (an optional .50 after) is rejected; cards and phone numbers written with these spaces are still found when a +, parentheses or a group of another length makes them one, and streamed and whole-text redaction still agree (a55e9a9). The review of a55e9a9 found that the rule let out nine digits in threes (612 345 678), which is how Spain, Poland, Portugal, Czechia and Slovakia write mobile numbers, web pages putting no-break spaces in them, and any grouping starting with 0 (030 123 456); since 8f1e281 both are read as phone numbers again, so a nine-digit amount written 3-3-3 is hidden as a phone number: a number let out is worse than an amount hidden",
    items: ["I3", "G6"],
    tests: [
      t("test/middleware/detectors.test.ts", "leave amounts grouped in thousands by no-break, narrow no-break or thin spaces alone"),
      t("test/middleware/visible-text.test.ts", "leave amounts grouped by no-break spaces alone"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "a6454af",
    title:
      "The redactor serialised and scanned Buffers and typed arrays number by number: up to 0.7 s per megabyte of bytes no detector could match (fixed for Buffers; other views can carry text and are scanned)",
    where: "{{src/middleware/redactor.ts|if (isBareBuffer(value)) return value;}}, {{src/middleware/redactor.ts|const isBareBuffer = }}",
    repro:
      "since 6545dee every value that is not plain went through JSON.stringify, JSON.parse and a walk, so a tool answering with bytes (fs.readFile without an encoding) cost 202 ms for a 1 MB Buffer and 700 ms for a 1 MB Uint8Array in the redactor (0 before 6545dee), and 957 ms and 2 737 ms per turn through the agent loop, where a 1 MB string took 36 ms (found by the review of 6545dee); for nothing, since the loop writes bytes as JSON numbers, never as the text they may encode, so no detector could match what the model reads. 1e5116f returned Buffers, typed arrays, DataViews and ArrayBuffers as they are, at once. The review of 1e5116f (review G) found that JSON writes more than the bytes of some of them (a typed array's own fields, a subclass's or an instance's toJSON, a DataView's properties): a Uint8Array subclass with a note field, a Uint8Array or Buffer with its own toJSON, and a DataView with a meta property reached the model with the key in them. Since a6454af only a Buffer whose toJSON is the inherited Buffer.prototype.toJSON (its JSON is { type, data }, bytes only) passes as it is, so a megabyte file read without an encoding still costs nothing; every other view is serialised and scanned as before 1e5116f, a non-Buffer typed array again number by number, at its old cost",
    items: ["I2", "I4", "G6"],
    tests: [
      t(
        "test/middleware/redactor-non-plain.test.ts",
        "returns a Buffer as it is, without serialising it (the model reads its bytes as numbers)",
      ),
      t(
        "test/middleware/redactor-non-plain.test.ts",
        "returns a megabyte Buffer as it is, at once (number by number it took about a second)",
      ),
      t(
        "test/middleware/redactor-non-plain.test.ts",
        "scans bytes that carry text of their own into the JSON: an own field, a toJSON, a view's property",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "26876c7",
    title: "retry's default retried an answer redaction blocked: three paid provider calls for one refusal",
    where: "{{src/middleware/retry.ts|const isRefusal = }}",
    repro:
      "redaction({ strategies: { api_key: \"block\" } }) and retry() on modelCall, the model answering with an API key: the call failed with RedactionBlockedError after 3 provider calls ('provider calls: 3'), each answer scanned and refused, so no leak, but three paid calls for one blocked answer; the default retryOn stopped only at a LimitExceededError, while fallback stopped at a redaction block since 2698d12 (found by the review of the redaction fixes). The default retryOn now stops at a guard's refusal (LimitExceededError, RedactionBlockedError) as it stopped at a limit; a retryOn of one's own still decides",
    items: ["E9", "B5"],
    tests: [
      t("test/middleware/retry.test.ts", "does not retry an answer redaction blocked: each attempt is a paid call with the same refusal"),
    ],
  },
  // Found by the reviews of the second round's fixes (the third round, f76be3d..b0b7520); the other faults they found are in the findings above.
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "a006ea9",
    title:
      "An around hook that failed closed before it called next() made its rejection final, so a hook outside could not answer it and redaction:unscanned could not scrub its reason",
    where:
      "{{src/core/around.ts|this.leave(Outcome.rejected(error.message, hook.name, error), this.calls > 0)}} (general path), {{src/core/around-only.ts|this.handed !== undefined ? final(rejected) : rejected}} (lean path)",
    repro:
      "R3 makes a closed failure in a before a rejection the hooks outside may still answer, and only one in an after, a recover or an around after next() final; but every closed failure of an around was final, on both paths: an around that threw before calling next(), inside an outer around answering a rejection with Replace({ content: 'fallback for …' }) as a fallback does, left the run Rejected by the crashed hook, and redaction:unscanned, which scrubs a rejected tool call's reason since f7240ae, could not change it either, so rateLimit's store error 'upstash 401: invalid token sk-ant-…' (its around fails closed before next()) reached the model whole (found by the review of f7240ae). Since a006ea9 an around's closed failure is final only once it called next(); before that it is a before's, which an outer hook may answer (4e62624 made the tests type-check)",
    items: ["A1", "B5", "G6"],
    tests: [
      t("test/core/failures.test.ts", "is a before's failure until it called next(): a hook outside may still answer"),
      t("test/core/failures.test.ts", "is an after's failure once it called next(): final, a hook outside cannot change it"),
    ],
  },
  {
    kind: "limitation",
    status: "open",
    title:
      "Through aiSdkMiddleware, reasoning, sources, files and raw chunks are not redacted, and under block a reader may see reasoning before the error part",
    where:
      "{{src/middleware/redaction.ts|control.transform(name, (part) => }} (only text deltas, tool calls and the finish are redacted), README.md (Redaction fails closed and scans what is read)",
    repro:
      'a MockLanguageModelV3 answer with an API key in its text, reasoning, a source URL and a raw chunk: text became [REDACTED:api_key] on generate and stream, but the raw, reasoning-delta and source parts carried the key; with api_key: "block" the consumer had been shown the reasoning holding the key before the error part arrived (found by the middleware audit, finding 5). Documented in the README by aa6af51; no test pins it',
    items: ["G6", "G2"],
    tests: [],
  },
  {
    kind: "limitation",
    status: "open",
    title: "The detectors do not normalise full-width forms, and custom pattern()s match the text as given",
    where:
      "{{src/middleware/visible-text.ts|const unusual = }} (only default-ignorable code points and Unicode spaces are read differently), README.md (Redaction fails closed and scans what is read)",
    repro:
      "since f9dd41c the built-in detectors skip invisible characters and read Unicode spaces as spaces, but full-width letters and signs (ｓｋ-…, ＠) are not mapped to ASCII (no NFKC view), so a key or an address written with them is not found; custom pattern()s see the text with its invisible characters (the middleware audit's fix suggested NFKC for full-width digits). Documented in the README by aa6af51; no test pins it",
    items: ["I3"],
    tests: [],
  },
  {
    kind: "limitation",
    status: "open",
    title: "A commandHook or httpHook mounted by hand that answers continue: false only refuses its call: the turn goes on",
    where: "{{src/executors/protocol.ts|A tool call cannot end the loop by itself}}, README.md (As in Claude Code: continue: false …)",
    repro:
      "since d9b3e81 such a hook marks its Reject (endsTurn) with the stopReason, refuses the call with a neutral reason (since 7fe2897 'hook \"X\" refused the call and asked to stop the turn (continue: false)', which stays true here, where before it said the hook 'stopped the turn') and tells stopReason to the user, but only fromClaudeSettings adds the claude-settings:turn-stop hooks (step, run, and an innermost toolCall one) that end the run and refuse its other calls; a hook used directly with stack.use(\"toolCall\", commandHook(…)) leaves the loop going, its later tools running",
    items: ["A16"],
    tests: [
      t("test/executors/protocol.test.ts", "continue: false rejects a tool call, telling stopReason to the user and not to the model"),
      t(
        "test/executors/protocol.test.ts",
        "continue: false from a hook mounted by hand never tells the model the turn stopped: nothing here ends it, and the turn goes on",
      ),
    ],
  },
  // Found by the audits of 2026-11-23 (engine, agent lifecycle, middleware) and the reviews of their fixes.
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "10cc356",
    title:
      "A streamed model call's TurnResult.usage dropped a stream that failed part-way when a modelCall recover hook answered in its place or an around hook called next() again",
    where:
      "{{src/agent/stream/call-spend.ts|export class CallSpend}}, {{src/agent/stream/through-stack.ts|const spend = new CallSpend();}}, {{src/agent/model-step.ts|env.spent.usage = addUsage(env.spent.usage, addUsage(streamed.earlier, current));}}",
    repro:
      "a stream that sent 800 characters and failed, then a recover hook's answer or an around hook's second next(): the turn reported 1/1 tokens, the final answer's only, because the loop counted the call's outcome and a failed stream was counted only when its ModelStreamError was that outcome (found by the agent audit). 1ebc06d gave StreamResult a spent field: what every stream the call opened streamed (refunded when it produced nothing) plus the usage of an answer a hook gave in their place, told apart by the objects a stream's response carries. The review of 1ebc06d found the identity rule counted a hook's copy twice (an after hook's structuredClone(res): 20/40 for 10/20; a recover hook's structuredClone(error.partial): 4/100 for 2/50), ignored an after hook's new usage on the stream path while generate honoured it, and missed the first attempt when the caller aborted during an around hook's retry (2/60 for 4/110). Since 10cc356 CallSpend decides: an answer carrying a stream's usage object is that stream's, one rebuilt after a finished last stream stands for it with the usage it gives (as on generate), one whose counts equal a failed stream's is its partial, any other is a hook's and adds its usage; the abort path adds what the streams opened before the current one spent",
    items: ["G4", "H2"],
    tests: [
      t(
        "test/agent/model-step.test.ts",
        "counts a stream that failed part-way when a modelCall recover hook answers in its place, with the hook's answer",
      ),
      t(
        "test/agent/model-step.test.ts",
        "counts a stream that failed part-way when an around hook calls next() again, with the second attempt's answer",
      ),
      t("test/agent/model-step.test.ts", "counts a stream once when a modelCall recover hook answers with a copy of what it had streamed"),
      t("test/agent/model-step.test.ts", "counts a stream once when an after hook answers with a deep copy of its response"),
      t(
        "test/agent/model-step.test.ts",
        "counts a stream once when a modelCall recover hook answers with a deep copy of what it had streamed",
      ),
      t("test/agent/model-step.test.ts", "counts both streams when an around hook calls next() twice and answers with the first"),
      t("test/agent/model-step.test.ts", "counts the stream an around hook's retry replaced when the caller aborts during the retry"),
      t(
        "test/agent/stream/through-stack.test.ts",
        "counting the failed stream and the retry's answer when an around hook calls next() again",
      ),
      t(
        "test/agent/stream/through-stack.test.ts",
        "counting the failed stream and the usage of the answer a recover hook gave in its place",
      ),
      t("test/agent/stream/through-stack.test.ts", "counting a cache's answer by its usage when no stream was opened"),
      t("test/agent/stream/through-stack.test.ts", "counting a stream once when an after hook rewrites its text"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "10cc356",
    title:
      "An answer an error hook recovered a model call with never reached onPart, was not checked as a response, and its usage was not counted",
    where:
      "{{src/agent/model-step.ts|const showRecovered = }}, {{src/agent/model-step.ts|the error point's recover value}}, {{src/agent/model-step.ts|const recoveredSpend = }}",
    repro:
      "an error hook answering { action: \"recover\", value: { text: \"recovered\", … } } for a failed stream: a streaming consumer's onPart saw the stream's error part and then nothing, though the turn completed with text recovered; a value whose toolCalls was \"oops\", a tool call without a name, or usage that is not counts completed the turn, unchecked (found by the agent audit). Since 1ebc06d the answer is shown to onPart as text, tool calls and a finish after the failed stream's error part, as a retry's new stream is, and a malformed one fails the turn with the response's TypeError. Its usage was still left out of TurnResult.usage; since 10cc356 (with the review of 1ebc06d's fixes) it is added unless it is the failed stream's own partial or a copy of it (counted by that stream), a field given as undefined (usage: error.partial?.usage with no partial) takes its default, and a malformed one fails with 'the error point's recover value: …'",
    items: ["A7", "G4"],
    tests: [
      t("test/agent/model-step.test.ts", "reaches onPart as text and a finish, after the failed stream's error part"),
      t("test/agent/model-step.test.ts", "fails the turn with the response's TypeError when it has"),
      t("test/agent/model-step.test.ts", "counts its usage, as a modelCall recover hook's answer is counted"),
      t("test/agent/model-step.test.ts", "does not count the failed stream twice when it is that stream's partial answer"),
      t("test/agent/model-step.test.ts", "takes a field given as undefined as left out"),
    ],
  },
  {
    kind: "gap",
    status: "fixed",
    fixedIn: "c3ad307",
    title:
      "chunkHook, outputGate, wrapTool, wrapModel, wrapMcpClient and wrapAiSdkTools accepted a spec, tool, model, client or option they could not use, and failed at the first call",
    where:
      "{{src/agent/stream/hooks.ts|const checkSpec = }}, {{src/agent/wrap-tool.ts|const checkWrapped = }}, {{src/agent/wrap-model.ts|const checkWrapped = }}, {{src/adapters/mcp.ts|const checkWrapped = }}, {{src/adapters/ai-sdk-tools.ts|const checkWrapped = }}, {{src/core/errors.ts|export const describeGiven = }}",
    repro:
      "chunkHook({ name: \"c\", chunk: \"uppercase\" }) was accepted and every stream then failed with 'StreamHookError: … fn is not a function' (a before or an outputGate replacement that is not a function likewise: the hook calls them itself, past the stack's checks); wrapTool(stack, { name: \"x\" }) made every call read 'tool.execute is not a function'; wrapModel(stack, null) and wrapMcpClient(stack, null) threw a raw 'Cannot read properties of null'; wrapAiSdkTools(stack, null) threw 'Cannot convert undefined or null to object', and one of its tools with execute: \"run\" was left unwrapped, so it ran around the hooks; a rejected option that is not a function failed on the first rejection, and a stack without run on the first call (found by the agent audit). Since aad45eb, d1a6075, b216a91, a5d2c60 and bd426f3 each factory throws a TypeError at creation naming itself, the hook or tool and the field, and showing what was given (wrapTool \"x\": execute must be a function, got undefined); 49b1a90 gave the five one describeGiven. The review of 49b1a90 found wrapTool(stack, 'x'.repeat(100000)) threw a 100,000-character message; since c3ad307 describeGiven cuts a string at 200 characters and says how long it was",
    items: ["J1", "A12"],
    tests: [
      t("test/agent/stream/hooks.test.ts", "refuses a missing chunk transform at creation, instead of failing every stream"),
      t("test/agent/stream/hooks.test.ts", "refuses a chunk transform that is not a function, saying what was given"),
      t("test/agent/stream/hooks.test.ts", "refuses a replacement that is not a function, instead of failing when it first blocks"),
      t("test/agent/stream/hooks.test.ts", "refuses a before that is not a function, since the hook calls it itself"),
      t("test/agent/wrap-tool.test.ts", "refuses a tool without execute at creation, instead of failing every call"),
      t("test/agent/wrap-tool.test.ts", "refuses a stack it cannot run the toolCall point on"),
      t("test/agent/wrap-model.test.ts", "refuses a model that is not an object, instead of a raw property read"),
      t("test/agent/wrap-model.test.ts", "still wraps a model without stream, streaming it from generate"),
      t("test/adapters/mcp.test.ts", "refuses a client without callTool, instead of failing every call"),
      t("test/adapters/mcp.test.ts", "refuses a rejected option that is not a function, instead of failing on the first rejection"),
      t("test/adapters/ai-sdk-tools.test.ts", "refuses an execute that is given but not a function, naming the tool"),
      t("test/adapters/ai-sdk-tools.test.ts", "refuses a tool set that is not an object, instead of a raw Object.entries error"),
      t(
        "test/core/errors.test.ts",
        "cuts a long string at 200 characters and says how long it was, so an error never repeats a huge value",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "cb594b9",
    title: "`function f { rm -rf /; }` hid its body from a Bash(rm *) condition",
    where: "{{src/core/match/shell-syntax.ts|const dropFunctionHeader = }}",
    repro:
      "bash's function keyword form was read as one command named function (only `name ()` counted as a definition), so toolPolicy's deny Bash(rm *) let `function f { rm -rf /; }; f` run, with the body in braces, parentheses or on the following lines (found by the engine audit). Since e875ba7 the `function name` header is dropped as `name ()` is and the body is read as ordinary commands. The review of e875ba7 found the header check quadratic: it copied every word before a `function` that was second-to-last, so `echo function x function x …` took 2 s at 200 KB and 11 s at 400 KB for one Bash condition; since cb594b9 the reader counts the reserved words that open the command as it reads them (200 KB in ~20 ms)",
    items: ["J4", "J3"],
    tests: [
      t(
        "test/core/match/shell.test.ts",
        "reads the body of bash's function keyword form, with or without () and with the body on later lines",
      ),
      t("test/core/match/shell.test.ts", "lists the body's commands and not the definition line"),
      t("test/core/match/shell.test.ts", "reads 200 KB of `function x` words in well under a second, as it reads any other words"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "37c8096",
    title:
      "A shell reading its script from standard input (a here-string, a heredoc, a pipe, `< file`, a process substitution, source /dev/stdin) was not looked into by a Bash(...) condition",
    where:
      "{{src/core/match/shell-syntax.ts|if (intoStdin) stdin = word;}}, {{src/core/match/shell.ts|const shellCode = }}, {{src/core/match/shell.ts|const hereText = }}, {{src/core/match/shell.ts|const valuedLetters = }}, {{src/core/match/replacement.ts|export const fillsIn = }}, {{src/core/match/shell.ts|const readWrapper = }}, {{src/core/match/shell.ts|form = call.flags.some((f) => syntax.lookup?.includes(f))}}",
    repro:
      "`bash <<< 'rm -rf /'`, a heredoc fed to sh, `echo 'rm -rf /' | sh`, `sh < x.sh`, `. <(…)`, `source /dev/stdin` and `bash -euxo pipefail -c 'rm -rf /'` all ran under a Bash(rm *) deny: a shell without -c or a script operand ran nothing the analysis saw (found by the engine audit). Since caa180c a here-text fed to descriptor 0 is read as the script, and with no such text the shell's code is unseen, so the command is opaque (a deny condition matches, an allow rule is not satisfied). The review of caa180c found more ways past: `bash +c 'rm -rf /'`, `bash -oc posix 'rm -rf /'` (7a1a97d reads clusters letter by letter, each o/O taking the next word); `echo 'rm -rf /' | xargs -0 sh -c` and `xargs -I{} sh -c '{}'` (25c1a38: sh -c with no string, or a script holding a replacement string, is opaque); `sudo -s <<< 'rm -rf /'`, `echo 'rm -rf /' | su -`, and `sudo -iu root rm -rf /`, which hid rm behind 'root' (ba38a5a: sudo -s/-i, su and pkexec start a shell reading standard input, and wrapper options are read as getopt reads them). It also found `command -v bash`, `command -V sh` and `if command -v zsh >/dev/null; then …` blocked since caa180c, a bare bash now being opaque, with no allow rule able to let them through; since f0bc8b7 command -v/-V run no inner command. The review of those five commits found more: xargs replacement strings set inside an option cluster (`xargs -0I{} sh -c '{}'`, -rI{}, -ri) still ran (8226fd9 reads xargs' options as getopt does); the script-option scan read the inner command's own options (`flock /tmp/l grep -ic rm build.log` was blocked, `env LC_ALL=C ls -lS \"my (dir)\"` unreadable; 746d36d looks among the wrapper's own options only); su's options after the user (`su root -s /bin/bash <<< 'rm -rf /'` ran; 41450a7) and runuser without -u (`runuser -l root <<< …` ran; 7ace321); and analysing a command that stacks wrappers cost time by the square of its length (40 KB of 'su - u ' 7.5 s, 100 KB of 'sudo ' 39 s; since 37c8096 more than 64 levels are opaque, 100 to 260 ms)",
    items: ["J4"],
    tests: [
      t("test/core/match/shell.test.ts", "counts a command stacking more than 64 wrappers as opaque"),
      t("test/core/match/shell.test.ts", "reads a literal here-string or here-document fed to a shell as the script it runs"),
      t(
        "test/core/match/shell.test.ts",
        "matches a shell whose script comes from a pipe, a file, a process substitution or a here-document that expands",
      ),
      t("test/core/match/shell.test.ts", "finds the -c script after options that take a value, so it is not mistaken for a script file"),
      t("test/core/match/shell.test.ts", "leaves ordinary commands as they were: a script file, sh -c, pipes between other programs"),
      t("test/core/match/shell.test.ts", "reads +c and +s as -c and -s, as bash and dash do"),
      t("test/core/match/shell.test.ts", "gives each o or O in a cluster the next word, in order, wherever it stands in the cluster"),
      t(
        "test/core/match/shell.test.ts",
        "matches sh -c without a script, which takes the script from the arguments xargs or parallel append",
      ),
      t(
        "test/core/match/shell.test.ts",
        "matches a script holding the replacement string, whose text is only known when the input arrives",
      ),
      t("test/core/match/shell.test.ts", "reads the here-text fed to sudo -s, sudo -i, su or doas -s as the script that shell runs"),
      t("test/core/match/shell.test.ts", "matches such a shell reading its script from a pipe"),
      t("test/core/match/shell.test.ts", "reads a command given to those wrappers as the command, through option clusters"),
      t(
        "test/core/match/shell.test.ts",
        "reads command -v and -V as looking a name up, running nothing, so a shell named there is no shell run",
      ),
      t("test/core/match/shell.test.ts", "still sees what command runs without -v"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "05ac2ae",
    title:
      'A detail that was present but not a string skipped a Name(pattern) deny condition: command: ["rm", "-rf", "/"] ran under deny Bash(rm *)',
    where:
      "{{src/core/match/detail.ts|export const readDetail = }}, {{src/core/match/matcher.ts|return d === UNREADABLE_DETAIL || condition(d);}}, {{src/agent/points.ts|const detail = readDetail(input[key]);}}",
    repro:
      'a Bash call with input { command: ["rm", "-rf", "/"] } ran under toolPolicy({ deny: ["Bash(rm *)"] }), and a custom point whose detail returned an array, a number or an object let a deny hook through: the matcher and toolDetails took any non-string as no detail, and a Name(pattern) condition never matches a call without one (found by the engine audit). readDetail now keeps undefined and null as no detail and turns any other non-string into UNREADABLE_DETAIL, which a matcher matches as it matches a command it cannot read, while no allow condition is satisfied by it; toolDetails gives it for such a field and for a Glob pattern that is not a string',
    items: ["J2", "B2"],
    tests: [
      t("test/agent/points.test.ts", "is a detail that cannot be read, not a missing one"),
      t("test/agent/points.test.ts", "is caught by a deny condition of toolPolicy, as an unreadable command is"),
      t("test/agent/points.test.ts", "satisfies no allow condition"),
      t("test/core/match/matcher.test.ts", "matches, as it matches a command it cannot read, so a deny condition is not skipped"),
      t("test/core/match/matcher.test.ts", "still does not match when there is no detail at all"),
      t("test/core/match/matcher.test.ts", "lets a deny hook on a custom point reject the call, as a detail function that throws does"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "cd533e1",
    title:
      "ctx.hook was the engine's live hook record: a hook could set its own shadow or failMode and escape enforcement in that run, later runs and derived stacks",
    where: "{{src/core/hook.ts|info: Object.freeze(}}, {{src/core/run-context.ts|get hook(): HookInfo}}",
    repro:
      "RunContext.hook and ScopedContext.hook handed a hook the CompiledHook the engine runs from, so a guard that wrote ctx.hook.shadow = true (or failMode, before, priority) had its Reject ignored in that run, in every later run, in stacks derived from it, and explain listed it as shadow (found by the engine audit). ctx.hook is now a frozen { name, shadow, source } view (HookInfo), made once per hook at registration, the same object on both around paths; the scoped context keeps the record to itself as owner, for addContext, and an operation's context shows the '?' view; no allocation per run or per hook call",
    items: ["A8"],
    tests: [
      t("test/core/run-context.test.ts", "is a frozen view of name, shadow and source in every phase and on the timed path"),
      t("test/core/run-context.test.ts", "is the same frozen view in an around hook"),
      t("test/core/run-context.test.ts", "is one object per hook, made at registration, not per run"),
      t("test/core/run-context.test.ts", "names no hook in the operation's context"),
      t(
        "test/core/run-context.test.ts",
        "cannot switch a guard into shadow mode: its Reject is enforced in that run, later runs, a derived stack, and explain",
      ),
      t("test/core/run-context.test.ts", "cannot switch an around hook into shadow mode"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "e8ccb9a",
    title:
      "An around hook's first next() after the caller aborted was blamed as NextMisuseError and counted as a fail-open failure of a closed hook",
    where:
      "{{src/core/around.ts|export const runSettledFirst = }}, {{src/core/around.ts|return runSettledFirst(this.run}}, {{src/core/around-only.ts|if (run.settled) return }}",
    repro:
      "a gate hook in closed mode sleeping past the caller's abort, then calling next() once: it got Failed(NextMisuseError 'next() called after hook \"polite\" settled'), onFailure was told, and stats counted a fail-open failure, though the hook had not settled and did nothing wrong (found by the engine audit; c2525af had fixed a next() already pending when the run settled, see its finding). Since fb9a7c0 both around paths answer a next() a hook still deciding calls after its run settled with the run's outcome (runSettledFirst), starting nothing; a next() after the hook itself settled stays a misuse (R4). Found on reading the fix: a hook that awaited a pending next() the settled run answered, then called next() again, read 'still pending'; the run-settled check now comes first, so it gets the outcome too. The review of fb9a7c0 found two faults, fixed together: a hook retrying until it succeeds (for (;;) { const o = await next(); if (o._tag !== 'Failed') return o; }) spun forever on resolved promises once the run was aborted, freezing the process (timers never fired; before, the misuse ended the loop), so since e8ccb9a each hook gets the settled run's outcome from one next() and a NextMisuseError, uncounted, from any later one; and an inner hook got a hook outside's stand-in answer as its inside's outcome (an outer deadline fallback's Replace('search is slow, try later') was stored by cache inside it and served to the next call, 0 operations run; already so for a pending next() before fb9a7c0), so when a hook outside settled the run without waiting, inner next() calls get Failed(OperationAbandonedError); after the caller's abort or the deadline they still get the run's Failed(RunAbortedError). The review of e8ccb9a found fallback then called its backup model for such an abandoned inside (a billed call whose answer was dropped); since 33fd717 fallback and retry do not act on OperationAbandonedError",
    items: ["A6", "C2", "K2"],
    tests: [
      t(
        "test/core/around-pending-next.test.ts",
        "gets the run's outcome from a next() it first calls after the caller aborted, with no misuse and no failure counted",
      ),
      t(
        "test/core/around-pending-next.test.ts",
        "gets the run's outcome from a second next() called while the first is pending after the run settled, and a refusal, uncounted, from a third",
      ),
      t(
        "test/core/around-pending-next.test.ts",
        "refuses a third next() after the run settled, so a hook retrying until it succeeds ends rather than spins",
      ),
      t(
        "test/core/around-pending-next.test.ts",
        "gets Failed(OperationAbandonedError) from a next() it first calls after a hook outside answered without waiting",
      ),
      t("test/middleware/fallback.test.ts", "does not call a backup model for the inside the run abandoned"),
      t("test/middleware/retry.test.ts", "does not call again for the inside the run abandoned, and reports no failure"),
      t("test/core/around-pending-next.test.ts", "still refuses a next() called after the hook itself settled, as a misuse"),
      t(
        `${R}/composition.test.ts`,
        "resolves a hook's first next() after the run deadline to the run's outcome, never reaching the operation nor counting a misuse",
      ),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    fixedIn: "1d3fdb1",
    title: "With two rate limits on one point, the outer one counted the calls the inner one refused",
    where:
      "{{src/middleware/rate-limit.ts|interface Tally}}, {{src/middleware/rate-limit.ts|Reservation.take(ctx, key, id, 1, limit}}, {{src/middleware/rate-limit.ts|slot.settle(1, settleOptions)}}, {{src/middleware/rate-limit.ts|await slot.release()}}",
    repro:
      "rateLimit perMinute 10 and a fixed burst limit of 3 on one tool, 10 concurrent Search calls: 3 reached the tool but perMinute counted 10, so after the burst window, with 3 calls made in the minute, the next call was refused; the same with callLimit and rateLimit, on RedisStore, and for two limits on modelCall: each count hook took its slot before next() and kept it whatever came back (found by the middleware audit). Each algorithm now takes its slot as a store reservation (one atomic admission, as before) and, after next(), settles it when the attempt got past every limit inside, or releases it (this attempt's entry only) when an inner limit refused or failed closed first; a failed settle or release is swallowed and the reservation counts until it expires (7f857e4). The review of 7f857e4 found the per-call record's two flags (refused, reached) never reset between attempts: with one limit outside a retry and two inside it, a first attempt the innermost limit refused and a retry that reached the model left every limit at 0 (O/M/I used 0/0/0 after 1 model call, expected 1/1/1), the middle limit counted the refused attempts (3 for 1 model call), and under load 9 model calls got through a limit of 5 per minute. Since 25b7ff7 the count hooks of a call share a Tally of refusals and kept slots, and each gives its slot back only when refusals grew during its next() and no slot was kept. The review of 25b7ff7 found that one call running two attempts at once (a timed hook gave up on attempt 1 while its model call ran on, a retry outside started attempts 2 and 3, which the innermost limit of 1 refused) made attempt 1's innermost limit give back the slot its model call used, so a second call in the minute got through; since 1d3fdb1 a limit gives back only when its own attempt's answer is a limit's refusal",
    items: ["H1", "H2"],
    tests: [
      t(
        "test/middleware/rate-limit.test.ts",
        "keep the innermost limit's slot for an attempt that reached the model while a sibling attempt of the same call was refused",
      ),
      t("test/middleware/rate-limit.test.ts", "count in the outer limit only the calls the inner one let through to the tool"),
      t("test/middleware/rate-limit.test.ts", "give the slot back whichever algorithm the outer limit uses, callLimit's count included"),
      t("test/middleware/rate-limit.test.ts", "count in the outer limit only the model calls the inner one let through"),
      t("test/middleware/rate-limit.test.ts", "keep the outer count of a call that reached the model before a retry inside it was refused"),
      t("test/middleware/rate-limit.test.ts", "does not fail a call that ran when its count cannot be settled, and still counts it"),
      t("test/middleware/rate-limit-redis.test.ts", "count in the outer limits only the calls that got past the inner one to the tool"),
      t(
        "test/middleware/rate-limit.test.ts",
        "count once in every limit a call whose first attempt the innermost refused and whose retry reached the model",
      ),
      t(
        "test/middleware/rate-limit.test.ts",
        "count once in every limit a call that reached the model, then had its retries refused by the innermost",
      ),
      t(
        "test/middleware/rate-limit-redis.test.ts",
        "count once in every limit a call whose first attempt the innermost refused and whose retry reached the model",
      ),
    ],
  },
  {
    kind: "gap",
    status: "fixed",
    fixedIn: "25f327d",
    title:
      'metrics, tracing, audit and chromeTraceRecorder read points: "toolCall" as a list of its characters, and MemoryStore({ now: 5 }) threw a bare TypeError at its first read of the clock',
    where:
      "{{src/middleware/every-point.ts|points must be a list of agent point names}}, {{src/core/memory-store.ts|MemoryStore: now must be a function}}",
    repro:
      "metrics({ points: \"toolCall\" }) failed with 'metrics: \"t\" is not an agent point …' because onEveryPoint iterated the string, tracing({ points: \"modelCall\" }) likewise, and metrics({ points: \"\" }) threw 'points.map is not a function'; audit and chromeTraceRecorder go through the same helper; new MemoryStore({ now: 5 }) threw 'now is not a function' from its first read of the clock (found by the middleware audit). onEveryPoint now refuses a points that is not a list ('metrics: points must be a list of agent point names, got \"toolCall\"') and names an item that is not a string as given; MemoryStore throws 'MemoryStore: now must be a function, got 5' when made (54268e0 shows the value with describeGiven)",
    items: ["J1"],
    tests: [
      t(
        "test/middleware/metrics.test.ts",
        "refuses points that are not a list of agent point names when it is made, naming the hook and the field",
      ),
      t(
        "test/middleware/tracing.test.ts",
        "refuses points that are not a list of agent point names when it is made, naming the hook and the field",
      ),
      t(
        "test/middleware/chrome-trace.test.ts",
        "refuses points that are not a list of agent point names when it is made, naming the hook and the field",
      ),
      t("test/middleware/audit.test.ts", "refuses points that are not a list of agent point names, naming the field"),
      t("test/core/memory-store.test.ts", "refuses a clock that is not a function when it is made, naming the field"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    title: "A session kept every finished turn reachable, and per-run guard state stayed in the store for a day",
    where:
      "{{src/agent/session.ts|this.tail = Promise.all([earlier, turn.catch(noop)]).then(noop)}}, {{src/middleware/run-state.ts|export const forgetAfterRun}}, {{src/agent/scripted-model.ts|keepRequests}}",
    repro:
      "3,000 turns of one session took the heap from 26.5 to 132 MiB, and 5,000 turns with the recommended middleware 346 MiB: the session chained turns with Promise.all, whose value held every TurnResult; tokenBudget and timeLimit left two keys per turn in the MemoryStore; the scripted model kept a copy of every request, each with the whole conversation",
    items: ["H7"],
    tests: [
      t("test/agent/session-memory.test.ts", "runs 5 000 turns with the standard middleware in flat memory"),
      t("test/agent/session-retention.test.ts", "are not kept by the session once the caller drops their results"),
      t("test/middleware/guards.test.ts", "forgets the count when the run ends"),
      t("test/agent/scripted-model.test.ts", "keeps the latest 100 requests by default and counts every one"),
    ],
  },
  {
    kind: "bug",
    status: "fixed",
    title:
      "Budgets on Redis refused every call for seconds after a stall: reservations the client gave up on held for ten minutes, and each reserve summed them all",
    where: "{{src/middleware/reservation.ts|export class Reservation}}, {{src/stores/redis-scripts.ts|local function purge}}",
    repro:
      'SIGSTOP of redis-server for 4 s under about 1,500 calls a second: reserves that timed out on the client ran when the server resumed and held their amount for 10 minutes; each later reserve read all of them (HVALS), so calls kept timing out and 63 leftovers grew to 17,790; a budget that had spent 745,000 of 1,000,000 tokens refused with "1000000 of 1000000 tokens used"',
    items: ["H2", "H3"],
    tests: [
      t("test/stores/redis-faults.test.ts", "budgets and limits across processes while redis-server fails"),
      t("test/stores/redis.test.ts", "reserves and reads a budget in time independent of how many reservations it holds"),
      t("test/middleware/budget.test.ts", "states what was really spent and what calls under way hold when it refuses"),
      t("test/middleware/rate-limit.test.ts", "gives back the slot a sliding window took for a call whose reserve answer was lost"),
    ],
  },
  {
    kind: "gap",
    status: "fixed",
    title: "The soak could not fail for a run that never settled or a small leak, and the page reused an old soak's figures",
    where: "{{test/soak/soak.ts|const watchdog = setInterval}}, {{scripts/reliability/report.ts|const soakCommand}}",
    repro:
      'one run that never settled made npm run soak exit 0 after about 4,200 runs with no figures, and the report then printed the committed "0 runs lost"; a leak of about 44 bytes a run (+73 % heap) passed a check that allowed 6 MiB of growth',
    items: ["H7"],
    tests: [
      t(`${R}/soak.test.ts`, "the soak fails > when a run never settles"),
      t(`${R}/soak.test.ts`, "the soak fails > when every run leaks a little"),
    ],
  },
];
