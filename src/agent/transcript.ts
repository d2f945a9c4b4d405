/**
 * The session transcript: the conversation appended, line by line, to a JSONL file in the shape
 * Claude Code writes (`type`, `message` as the Anthropic API has it, `uuid`/`parentUuid`), so that
 * hook scripts reading `transcript_path` (ralph-wiggum's loop, hookify's Stop rules) find what they
 * expect. Lines are written out as the conversation goes and never kept: a session's memory does
 * not grow with its transcript. Each write is synchronous (an append of a few lines, tens of µs):
 * a line is on disk before the next hook runs, whichever process reads it.
 */
import { createHash, randomUUID } from "node:crypto";
import { appendFileSync, closeSync, fstatSync, lstatSync, mkdirSync, openSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { dirname, join } from "node:path";
import { contentText } from "./content-text.ts";
import type { FinishReason, Message, ModelResponse, ToolCall, ToolResult } from "./types.ts";

/** Where the reference agent keeps transcripts. */
export interface TranscriptOptions {
  /** The directory of the session files (`<dir>/<session>.jsonl`); default `defaultTranscriptDir()`. */
  readonly dir?: string;
  /**
   * Keep the file once the session closes. Default: true when `dir` is given; false in the default
   * temporary directory, where it is removed after the session's `sessionEnd` hooks ran (or when the
   * process exits, for a session never closed).
   */
  readonly keep?: boolean;
}

/**
 * The default transcript directory: `agent-onion-<user>/transcripts` in the system's temporary
 * directory, private to the user (mode 0700).
 *
 * @example
 * defaultTranscriptDir() // "/tmp/agent-onion-1000/transcripts"
 */
export const defaultTranscriptDir = (): string => join(tmpdir(), `agent-onion-${userId()}`, "transcripts");

const userId = (): string => {
  const uid = process.getuid?.();
  if (uid !== undefined) return String(uid);
  try {
    return safeName(userInfo().username);
  } catch {
    return "user";
  }
};

/** A file name part for any id: kept when it is plain, else made plain with a hash of the original. */
const safeName = (id: string): string => {
  if (/^[A-Za-z0-9._-]{1,100}$/.test(id) && id !== "." && id !== "..") return id;
  return `${id.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 64) || "session"}-${createHash("sha256").update(id).digest("hex").slice(0, 12)}`;
};

/**
 * The transcript file of a session in `dir`: `<dir>/<session id>.jsonl`, the id made safe for a
 * file name when it is not (with a hash of it, so that ids that read alike get files of their own).
 *
 * @example
 * transcriptFile("/tmp/t", "s1") // "/tmp/t/s1.jsonl"
 */
export const transcriptFile = (dir: string, sessionId: string): string => join(dir, `${safeName(sessionId)}.jsonl`);

/** Default directories found to be the user's own in this process: checked once. */
const checked = new Set<string>();

/**
 * Make the directory (private to the user), refusing a default directory that is not ours: in a
 * shared temporary directory another user could have made it, or put a link there.
 */
const prepareDir = (dir: string): void => {
  if (checked.has(dir)) return;
  const top = dirname(dir);
  try {
    mkdirSync(top, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const st = lstatSync(top);
  const uid = process.getuid?.();
  if (!st.isDirectory() || (uid !== undefined && st.uid !== uid))
    throw new Error(
      `refusing to keep transcripts in ${top}: it is ${st.isSymbolicLink() ? "a link" : st.isDirectory() ? "another user's directory" : "not a directory"}; give createAgent({ transcript: { dir } }) or transcript: false`,
    );
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  checked.add(dir);
};

/** Do `work`, making `path`'s directory (private to the user) first if it turns out to be missing. */
const inDir = <T>(path: string, work: () => T): T => {
  try {
    return work();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    return work();
  }
};

/** Create `path` empty if it does not exist (mode 0600), so hooks find a file from the session's start; true when it is empty. */
const touch = (path: string): boolean => {
  const fd = inDir(path, () => openSync(path, "a", 0o600));
  try {
    return fstatSync(fd).size === 0;
  } finally {
    closeSync(fd);
  }
};

/** Claude Code's `stop_reason` for a finish reason. */
const stopReason = (finish: FinishReason): string =>
  finish === "tool-calls" ? "tool_use" : finish === "length" ? "max_tokens" : finish === "content-filter" ? "refusal" : "end_turn";

/** Who a transcript belongs to and what its lines say about where they were written. */
export interface TranscriptWriterOptions {
  readonly sessionId: string;
  readonly cwd: string;
  /** A sub-agent's own transcript: its lines are `isSidechain: true` and carry `agentId`. */
  readonly agentId?: string;
  /** Told about a write that failed (a full disk); the conversation goes on, the line is lost. */
  readonly onError?: (error: unknown) => void;
  /** For a sub-agent's transcript: the session's own. */
  readonly sessionPath?: string;
  /** Not kept: removed with `remove()`, or when the process exits if that never came. */
  readonly temporary?: boolean;
}

/** Transcripts not kept that are still there, removed when the process exits (a session never closed). */
const temporary = new Set<TranscriptWriter>();
let cleanupRegistered = false;

const removeFiles = (path: string): void => {
  try {
    rmSync(path, { force: true });
    rmSync(path.replace(/\.jsonl$/, ""), { recursive: true, force: true });
  } catch {
    // a file that cannot be removed stays
  }
};

/**
 * Remove the transcripts not kept whose sessions never closed: what the process does as it exits,
 * for a host that ends otherwise (a test runner that kills its workers).
 *
 * @example
 * afterAll(removeTemporaryTranscripts)
 */
export const removeTemporaryTranscripts = (): void => {
  for (const left of temporary) left.remove();
};

const removeAtExit = (writer: TranscriptWriter): void => {
  temporary.add(writer);
  if (cleanupRegistered) return;
  cleanupRegistered = true;
  process.once("exit", removeTemporaryTranscripts);
};

/**
 * Appends a session's conversation to its transcript file in Claude Code's line shapes: the
 * user's prompt, each block of an assistant message (text, tool use) as a line of its own, each
 * tool result as a user line with `toolUseResult`, hook feedback as a meta user line, hook context
 * as an attachment, and compaction as a boundary and its summary. Each call appends its lines
 * at once (one write); a write that fails is told to `onError` and never thrown.
 *
 * @example
 * const transcript = TranscriptWriter.open("/tmp/t/s1.jsonl", { sessionId: "s1", cwd: process.cwd() })
 * transcript.prompt("Fix the build")
 */
export class TranscriptWriter {
  private parent: string | null = null;
  private promptId: string | undefined;
  /** The current assistant message's tool uses, by id: the line each tool result answers. */
  private toolLines = new Map<string, string>();
  /** A sub-agent's transcript was started: the session's directory of them exists. */
  private sidechains = false;

  private constructor(
    readonly path: string,
    private readonly options: TranscriptWriterOptions,
    /** The file was empty when the writer was opened: a new session, or one resumed from elsewhere. */
    readonly fresh: boolean,
    /** Shared by a session's writer and its sub-agents': once removed, nothing is written again (a late line would make the file anew). */
    private readonly session: { removed: boolean } = { removed: false },
  ) {}

  /**
   * A writer for `path`, creating the file (and its directory, private to the user) when needed.
   * `defaultDir` says the directory is the shared default, which must be the user's own.
   *
   * @example
   * const transcript = TranscriptWriter.open(transcriptFile(defaultTranscriptDir(), "s1"), { sessionId: "s1", cwd }, true)
   */
  static open(path: string, options: TranscriptWriterOptions, defaultDir = false): TranscriptWriter {
    if (defaultDir) prepareDir(dirname(path));
    const writer = new TranscriptWriter(path, options, touch(path));
    if (options.temporary === true) removeAtExit(writer);
    return writer;
  }

  /**
   * A sub-agent's transcript, beside the session's as Claude Code keeps them
   * (`<session>/subagents/agent-<id>.jsonl`); the file is made with its first line.
   */
  sidechain(agentId: string): TranscriptWriter {
    this.sidechains = true;
    const session = this.options.sessionPath ?? this.path;
    const path = join(session.replace(/\.jsonl$/, ""), "subagents", `agent-${safeName(agentId)}.jsonl`);
    return new TranscriptWriter(path, { ...this.options, agentId, sessionPath: session, temporary: false }, true, this.session);
  }

  private line(fields: Record<string, unknown>): string {
    const uuid = randomUUID();
    const line = {
      parentUuid: this.parent,
      isSidechain: this.options.agentId !== undefined,
      ...(this.options.agentId !== undefined ? { agentId: this.options.agentId } : {}),
      ...fields,
      uuid,
      timestamp: new Date().toISOString(),
      userType: "external",
      entrypoint: "agent-onion",
      cwd: this.options.cwd,
      sessionId: this.options.sessionId,
    };
    let text: string;
    try {
      text = JSON.stringify(line);
    } catch (error) {
      // A tool's own output that JSON cannot carry (a cycle, a BigInt) is left out; the text the model read stays.
      const { toolUseResult: _left, ...rest } = line as Record<string, unknown>;
      try {
        text = JSON.stringify(rest);
      } catch {
        this.report(error);
        return "";
      }
    }
    this.parent = uuid;
    return `${text}\n`;
  }

  private report(error: unknown): void {
    try {
      this.options.onError?.(error);
    } catch {
      // the caller's report failing is not the conversation's problem
    }
  }

  private write(text: string): void {
    if (text === "" || this.session.removed) return;
    try {
      inDir(this.path, () => appendFileSync(this.path, text, { mode: 0o600 }));
    } catch (error) {
      this.report(error);
    }
  }

  /** The user's prompt, starting a new prompt id (`promptId`, else a new one) for the lines that follow. */
  prompt(text: string, promptId: string = randomUUID()): void {
    this.promptId = promptId;
    this.write(this.line({ promptId: this.promptId, type: "user", message: { role: "user", content: text } }));
  }

  /** An assistant message: one line per content block (its text, then each tool use), as Claude Code writes them. */
  assistant(response: Pick<ModelResponse, "text" | "toolCalls" | "finishReason" | "usage" | "model">, model: string): void {
    const id = `msg_${randomUUID().replace(/-/g, "").slice(0, 24)}`;
    const message = (block: Record<string, unknown>) => ({
      id,
      type: "message",
      role: "assistant",
      model: response.model ?? model,
      content: [block],
      stop_reason: stopReason(response.finishReason),
      stop_sequence: null,
      usage: { input_tokens: response.usage.inputTokens, output_tokens: response.usage.outputTokens },
    });
    this.toolLines = new Map();
    let text = "";
    // An answer with neither text nor tool calls is still an answer: one empty text block.
    if (response.text !== "" || response.toolCalls.length === 0)
      text += this.line({ type: "assistant", message: message({ type: "text", text: response.text }) });
    for (const call of response.toolCalls) {
      text += this.line({ type: "assistant", message: message({ type: "tool_use", id: call.id, name: call.name, input: call.input }) });
      this.toolLines.set(call.id, this.parent!);
    }
    this.write(text);
  }

  /** A tool's result, as the model reads it (`message`) and as the tool returned it (`toolUseResult`). */
  toolResult(call: Pick<ToolCall, "id">, result: ToolResult): void {
    const text = contentText(result.content);
    const isError = result.isError === true;
    const raw = isError ? `Error: ${text}` : result.content;
    const source = this.toolLines.get(call.id);
    this.write(
      this.line({
        ...(this.promptId !== undefined ? { promptId: this.promptId } : {}),
        type: "user",
        message: { role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: text, is_error: isError }] },
        ...(raw !== undefined ? { toolUseResult: raw } : {}),
        ...(source !== undefined ? { sourceToolAssistantUUID: source } : {}),
      }),
    );
  }

  /** Hook feedback that joins the conversation as a user message (a stop hook's reasons). */
  feedback(text: string): void {
    this.write(
      this.line({
        ...(this.promptId !== undefined ? { promptId: this.promptId } : {}),
        type: "user",
        message: { role: "user", content: text },
        isMeta: true,
      }),
    );
  }

  /** Hook context that joined the conversation (system or user messages the loop added for hooks). */
  context(messages: readonly Message[]): void {
    let text = "";
    for (const m of messages) {
      text +=
        m.role === "user"
          ? this.line({
              ...(this.promptId !== undefined ? { promptId: this.promptId } : {}),
              type: "user",
              message: { role: "user", content: m.content },
              isMeta: true,
            })
          : this.line({ type: "attachment", attachment: { type: "hook_additional_context", content: [m.content] } });
    }
    this.write(text);
  }

  /**
   * Messages a session starts from (a resumed conversation), written when its transcript is new,
   * so that hooks read the whole conversation.
   */
  history(messages: readonly Message[], model: string): void {
    for (const m of messages) {
      if (m.role === "user") this.prompt(m.content);
      else if (m.role === "assistant")
        this.assistant(
          {
            text: m.content,
            toolCalls: m.toolCalls ?? [],
            finishReason: m.toolCalls?.length ? "tool-calls" : "stop",
            usage: { inputTokens: 0, outputTokens: 0 },
          },
          model,
        );
      else if (m.role === "tool")
        this.toolResult({ id: m.toolCallId ?? "" }, { content: m.content, ...(m.isError === true ? { isError: true } : {}) });
      else this.context([m]);
    }
  }

  /** A compaction: Claude Code's boundary line, then the summary the conversation goes on from. */
  compacted(trigger: "auto" | "manual", tokens: number, summary: string): void {
    const boundary = this.line({
      type: "system",
      subtype: "compact_boundary",
      content: "Conversation compacted",
      level: "info",
      compactMetadata: { trigger, preTokens: tokens },
    });
    const after = this.line({
      type: "user",
      message: { role: "user", content: summary },
      isCompactSummary: true,
      isVisibleInTranscriptOnly: true,
    });
    this.write(boundary + after);
  }

  /** Remove the session's transcript and its sub-agents' (a session's own writer only). */
  remove(): void {
    this.session.removed = true;
    temporary.delete(this);
    if (this.sidechains) removeFiles(this.path);
    else {
      try {
        rmSync(this.path, { force: true });
      } catch {
        // a file that cannot be removed stays; the session is closed all the same
      }
    }
  }
}
