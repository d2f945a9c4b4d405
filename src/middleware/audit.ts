/**
 * `audit`: every decision of every hook (hook, point, phase, action, reason, timing, source)
 * as JSON lines, to a file or a writable stream, with PII and secrets scrubbed from what is
 * written. It is an observer (R10): it runs after each run settled and never delays a chain;
 * `stack.flush()` waits for its writes.
 */
import { randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import type { Writable } from "node:stream";
import type { RunEvent } from "../core/context.ts";
import { describe } from "../core/errors.ts";
import { Outcome } from "../core/outcome.ts";
import type { TraceEntry } from "../core/trace.ts";
import type { Middleware } from "./apply.ts";
import { allAgentPoints, observer, onEveryPoint } from "./every-point.ts";
import { knownOptions, nameOption, stringListOption } from "./options.ts";
import { createRedactor, type Redactor, type RedactorOptions } from "./redactor.ts";
import { redactOption, scrubbedNamesOf } from "./telemetry-attrs.ts";
import { wallClockAt } from "./wall-clock.ts";

/** One decision, as written. */
export interface AuditDecision {
  readonly type: "decision";
  /** When the hook was entered (ISO 8601). */
  readonly time: string;
  readonly sessionId: string | undefined;
  readonly runId: string;
  readonly point: string;
  readonly subject: string | undefined;
  readonly hook: string;
  readonly phase: string;
  readonly action: string;
  readonly reason: string | undefined;
  /** Ms from the start of the run to the hook's entry, and the hook's own duration. */
  readonly atMs: number;
  readonly ms: number;
  readonly source: string | undefined;
  readonly shadow: boolean | undefined;
  readonly failMode: string | undefined;
}

/** How a run ended, written after its decisions when it had any or did not complete. */
export interface AuditRun {
  readonly type: "run";
  readonly time: string;
  readonly sessionId: string | undefined;
  readonly runId: string;
  readonly point: string;
  readonly subject: string | undefined;
  readonly outcome: "Completed" | "Rejected" | "Failed";
  readonly by: string | undefined;
  readonly reason: string | undefined;
  readonly error: string | undefined;
  readonly durationMs: number;
  readonly metadata: Readonly<Record<string, unknown>> | undefined;
  /** For a run that stopped to wait for a person (`Interrupted`): the pending approval's id. */
  readonly approval?: string;
}

/** Options of `audit`: where lines go, which points, how they are scrubbed, which metadata is kept. */
export interface AuditOptions {
  /** A file path (appended to, created when missing) or a writable stream (left open). */
  readonly to: string | Writable;
  /** Hook name; default `audit`. */
  readonly name?: string;
  /** Which points to audit; default all standard agent points. */
  readonly points?: readonly string[];
  /** How to scrub what is written: a redactor, its options, or `false` to write as is. Default: the default detectors. */
  readonly redact?: Redactor | RedactorOptions | false;
  /** Metadata fields copied (scrubbed) into run lines, such as `["user", "tenant"]`; default none. */
  readonly metadata?: readonly string[];
}

/** The audit middleware, with a way to close the file it opened. */
export interface AuditMiddleware extends Middleware {
  /** Wait for pending writes and close the file (a stream given by the caller is left open). */
  close(): Promise<void>;
}

/**
 * Write every decision as JSON lines.
 *
 * @example
 * const log = audit({ to: "audit.jsonl", metadata: ["user"] })
 * const stack = withMiddleware(createAgentStack(), guards(), log)
 * // ... run the agent ...
 * await stack.flush()
 * await log.close()
 */
export const audit = (options: AuditOptions): AuditMiddleware => {
  knownOptions("audit", options, { to: true, name: true, points: true, redact: true, metadata: true });
  const name = nameOption("audit", options.name);
  const to = options.to;
  if (typeof to !== "string" && (typeof to !== "object" || to === null || typeof (to as Writable).write !== "function"))
    throw new TypeError(`${name}: to must be a file path or a writable stream`);
  if (to === "") throw new TypeError(`${name}: to must be a non-empty file path`);
  const redact = redactOption(name, options.redact);
  const redactor = redact === false ? undefined : isRedactor(redact) ? redact : createRedactor(redact ?? {});
  const scrub = (text: string | undefined): string | undefined =>
    text === undefined || redactor === undefined ? text : redactor.scrub(text);
  // A hook's name may carry a credential (a webhook URL's path), as its reasons may.
  const hookName = scrubbedNamesOf(redactor);
  // Ids are scrubbed by hashing what the detectors find, so that lines of one session still read
  // as one and two sessions stay apart: a session id is often a high-entropy token the secret
  // detector takes for a key, and a placeholder would make every session the same one. Without a
  // salt of the caller's, one made here: an unsalted hash of an email is found by hashing guesses
  // (the pseudonyms then hold for this audit() only; give `redact.salt` to keep them across runs).
  const idRedactor =
    redact === false
      ? undefined
      : isRedactor(redact)
        ? redact
        : createRedactor({ ...redact, strategy: "hash", strategies: {}, salt: redact?.salt ?? randomUUID() });
  const scrubId = (text: string | undefined): string | undefined =>
    text === undefined || idRedactor === undefined ? text : idRedactor.scrub(text);
  const scrubValue = (value: unknown): unknown => (redactor === undefined ? serialisable(value) : scrubDeep(value, scrub));
  const keep = stringListOption(name, "metadata", options.metadata) ?? [];
  const sink = new Sink(to);

  const lines = (event: RunEvent): string => {
    const origin = wallClockAt(event.startedAt);
    // A session id may be an email, and a default run id begins with the session id.
    const ids: Ids = { sessionId: scrubId(event.sessionId), runId: scrubId(event.runId) as string, subject: scrub(event.subject) };
    let text = "";
    for (const d of event.decisions) text += JSON.stringify(decision(event, d, origin, ids, scrub, hookName)) + "\n";
    if (event.decisions.length > 0 || event.outcome._tag !== "Completed")
      text += JSON.stringify(run(event, origin, ids, scrub, hookName, scrubValue, keep)) + "\n";
    return text;
  };

  return {
    name,
    hooks: onEveryPoint(
      observer(name, (event) => {
        const text = lines(event);
        return text === "" ? undefined : sink.write(text);
      }),
      options.points ?? allAgentPoints,
    ),
    close: () => sink.close(),
  };
};

const isRedactor = (value: unknown): value is Redactor => typeof (value as Redactor | undefined)?.scrub === "function";

const iso = (epochMs: number): string => new Date(epochMs).toISOString();
const round = (ms: number): number => Math.round(ms * 1000) / 1000;

/** What names a run in its lines, scrubbed. */
interface Ids {
  readonly sessionId: string | undefined;
  readonly runId: string;
  readonly subject: string | undefined;
}

const decision = (
  event: RunEvent,
  d: TraceEntry,
  origin: number,
  ids: Ids,
  scrub: (t: string | undefined) => string | undefined,
  hookName: (hook: string) => string,
): AuditDecision => ({
  type: "decision",
  time: iso(origin + d.at),
  sessionId: ids.sessionId,
  runId: ids.runId,
  point: event.point,
  subject: ids.subject,
  hook: hookName(d.hook),
  phase: d.phase,
  action: d.action,
  reason: scrub(d.reason),
  atMs: round(d.at),
  ms: round(d.ms),
  source: d.source,
  shadow: d.shadow,
  failMode: d.failMode,
});

const run = (
  event: RunEvent,
  origin: number,
  ids: Ids,
  scrub: (t: string | undefined) => string | undefined,
  hookName: (hook: string) => string,
  scrubValue: (value: unknown) => unknown,
  keep: readonly string[],
): AuditRun => {
  const o = event.outcome;
  let metadata: Record<string, unknown> | undefined;
  for (const key of keep) if (Object.hasOwn(event.metadata, key)) (metadata ??= {})[key] = guarded(() => scrubValue(event.metadata[key]));
  return {
    type: "run",
    time: iso(origin),
    sessionId: ids.sessionId,
    runId: ids.runId,
    point: event.point,
    subject: ids.subject,
    outcome: o._tag,
    by: o._tag === "Rejected" ? hookName(o.by) : undefined,
    reason: o._tag === "Rejected" ? scrub(o.reason) : undefined,
    error: o._tag === "Failed" ? scrub(describe(o.error)) : undefined,
    durationMs: round(event.durationMs),
    metadata,
    ...(Outcome.isInterrupted(o) ? { approval: o.approval.id } : {}),
  };
};

/**
 * A metadata value read and scrubbed, or a marker when reading it threw (a getter, a proxy): one
 * bad field must not lose the run's line and its decisions with it. Its error is not written, since
 * its message is as unscanned as the value.
 */
const guarded = (read: () => unknown): unknown => {
  try {
    return read();
  } catch {
    return "[unreadable]";
  }
};

/** A value as it will be written, read now, so that a getter or `toJSON` that throws does so inside `guarded`. */
const serialisable = (value: unknown): unknown => {
  const text = JSON.stringify(value);
  return text === undefined ? undefined : JSON.parse(text);
};

/**
 * Scrub every string in a JSON-like metadata value: a `user` field may be an object holding an
 * email as well as a plain string, and the email may be a key. Numbers are scanned as their digits
 * (a card number is one), and kept as numbers when nothing was found. Values deeper than 16
 * levels, cycles and class instances are written as a marker, not as they are, and so are
 * functions (`JSON.stringify` would call a `toJSON` and write what it returns): nothing
 * unscanned reaches the log.
 */
const scrubDeep = (value: unknown, scrub: (t: string | undefined) => string | undefined, depth = 0, seen = new Set<object>()): unknown => {
  if (typeof value === "string") return scrub(value);
  if (typeof value === "function") return "[function]";
  if (typeof value === "number" || typeof value === "bigint") {
    const digits = String(value);
    const scrubbed = scrub(digits);
    return scrubbed === digits ? (typeof value === "bigint" ? digits : value) : scrubbed;
  }
  if (typeof value !== "object" || value === null) return value;
  if (depth >= 16 || seen.has(value)) return "[unscanned]";
  const proto = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return "[unscanned]";
  seen.add(value);
  try {
    if (Array.isArray(value))
      return Array.from({ length: value.length }, (_, i) => guarded(() => scrubDeep(value[i], scrub, depth + 1, seen)));
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const item = guarded(() => scrubDeep((value as Record<string, unknown>)[key], scrub, depth + 1, seen));
      Object.defineProperty(out, scrub(key) ?? key, { value: item, enumerable: true, writable: true, configurable: true });
    }
    return out;
  } finally {
    seen.delete(value);
  }
};

/** Ordered writes to a stream; each write settles when the stream took it (or failed). */
class Sink {
  private stream: Writable | undefined;
  private failure: unknown;
  private tail: Promise<void> = Promise.resolve();
  private readonly owned: boolean;

  constructor(private readonly to: string | Writable) {
    this.owned = typeof to === "string";
  }

  write(text: string): Promise<void> {
    const next = this.tail.then(() => this.writeNow(text));
    this.tail = next.catch(() => undefined);
    return next;
  }

  async close(): Promise<void> {
    await this.tail;
    const stream = this.stream;
    if (!this.owned || stream === undefined || stream.destroyed) return;
    await new Promise<void>((resolve) => stream.end(resolve));
  }

  private open(): Writable {
    if (this.stream !== undefined) return this.stream;
    const stream = typeof this.to === "string" ? createWriteStream(this.to, { flags: "a" }) : this.to;
    // A stream error must never become an uncaught exception; it fails this and later writes.
    stream.on("error", (error: unknown) => (this.failure ??= error));
    this.stream = stream;
    return stream;
  }

  private writeNow(text: string): Promise<void> {
    const stream = this.open();
    if (this.failure !== undefined) return Promise.reject(this.failure);
    return new Promise<void>((resolve, reject) => {
      const onError = (error: unknown): void => reject(error);
      stream.once("error", onError);
      stream.write(text, (error) => {
        stream.off("error", onError);
        if (error) reject(error);
        else resolve();
      });
    });
  }
}
