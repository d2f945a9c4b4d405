/**
 * A small mock of the Anthropic Messages API for driving the real Claude Code binary offline.
 * It answers `POST /v1/messages` from a script of turns, streamed (server-sent events, as the
 * API sends them) or as one JSON body, and records every request it receives, so a test can read
 * what the model was sent: the tool results, the hook context, the system reminders.
 *
 * It listens on a Unix socket or a TCP port. The rig puts it on a Unix socket in the test's own
 * process and forwards a loopback port inside the network namespace to it, so turns may be
 * functions of the request.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A tool call the scripted model makes. */
export interface MockToolUse {
  readonly name: string;
  readonly input: Readonly<Record<string, unknown>>;
  /** Default `toolu_mock_<n>`. */
  readonly id?: string;
}

/** One scripted answer of the model. */
export interface MockAnswer {
  readonly text?: string;
  readonly toolUses?: readonly MockToolUse[];
  /** Default `tool_use` when there are tool uses, else `end_turn`. */
  readonly stopReason?: "end_turn" | "tool_use" | "max_tokens" | "stop_sequence";
  /** Answer with this HTTP status and an API error body instead. */
  readonly error?: { readonly status: number; readonly type: string; readonly message: string };
}

/** A turn: text, an answer, or a function of the request that computes one. */
export type MockTurn = string | MockAnswer | ((request: RecordedRequest, index: number) => string | MockAnswer);

/** A request the mock received. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The parsed JSON body (`undefined` when it was not JSON). */
  readonly body: MessagesRequest | undefined;
  /** Whether a scripted turn answered it (a main-loop call), or a side query did. */
  readonly scripted: boolean;
}

/** The parts of a Messages API request body the rig reads. */
export interface MessagesRequest {
  readonly model?: string;
  readonly stream?: boolean;
  readonly system?: string | readonly { readonly type: string; readonly text?: string }[];
  readonly messages: readonly { readonly role: string; readonly content: string | readonly ContentBlock[] }[];
  readonly tools?: readonly { readonly name: string }[];
  readonly max_tokens?: number;
}

/** A content block of a message, as the API defines it. */
export interface ContentBlock {
  readonly type: string;
  readonly text?: string;
  readonly id?: string;
  readonly name?: string;
  readonly input?: unknown;
  readonly tool_use_id?: string;
  readonly content?: string | readonly ContentBlock[];
  readonly is_error?: boolean;
}

export interface MockAnthropicOptions {
  readonly turns: readonly MockTurn[];
  /** What to answer once the turns are used up; default the text "Done." */
  readonly whenDone?: MockTurn;
  /**
   * Which requests consume a scripted turn. Default: those that offer tools (the agent loop);
   * anything else (a title, a topic check) gets `sideAnswer`.
   */
  readonly isScripted?: (body: MessagesRequest) => boolean;
  /** The answer to requests that are not scripted; default the text "ok". */
  readonly sideAnswer?: string;
}

/** A running mock. */
export interface MockAnthropic {
  /** Every request, in arrival order. */
  readonly requests: readonly RecordedRequest[];
  /** The requests that consumed a scripted turn, in order. */
  readonly scripted: () => readonly RecordedRequest[];
  /** Turns not yet used. */
  readonly remaining: () => number;
  /** `http://127.0.0.1:<port>` when listening on TCP. */
  readonly url: string | undefined;
  close(): Promise<void>;
}

const defaultScripted = (body: MessagesRequest): boolean => Array.isArray(body.tools) && body.tools.length > 0;

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });

/** The content blocks of an answer, with tool-use ids filled in. */
const blocksOf = (answer: MockAnswer, nextId: () => string): ContentBlock[] => {
  const blocks: ContentBlock[] = [];
  if (answer.text !== undefined && answer.text !== "") blocks.push({ type: "text", text: answer.text });
  for (const use of answer.toolUses ?? []) blocks.push({ type: "tool_use", id: use.id ?? nextId(), name: use.name, input: use.input });
  return blocks;
};

const usage = { input_tokens: 12, output_tokens: 7, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };

const sse = (res: ServerResponse, event: string, data: unknown): void => {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
};

/** Stream a message as the Messages API does: message_start, a start/delta/stop per block, message_delta, message_stop. */
const stream = (res: ServerResponse, id: string, model: string, blocks: readonly ContentBlock[], stopReason: string): void => {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", "request-id": `req_${id}` });
  sse(res, "message_start", {
    type: "message_start",
    message: {
      id,
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 },
    },
  });
  sse(res, "ping", { type: "ping" });
  blocks.forEach((block, index) => {
    if (block.type === "text") {
      sse(res, "content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } });
      // Two deltas, as a real stream splits text.
      const text = block.text ?? "";
      const half = Math.ceil(text.length / 2);
      for (const part of [text.slice(0, half), text.slice(half)])
        if (part !== "") sse(res, "content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: part } });
    } else {
      sse(res, "content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
      });
      sse(res, "content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) },
      });
    }
    sse(res, "content_block_stop", { type: "content_block_stop", index });
  });
  sse(res, "message_delta", {
    type: "message_delta",
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  });
  sse(res, "message_stop", { type: "message_stop" });
  res.end();
};

/**
 * Start the mock on a Unix socket path, or on a TCP port of 127.0.0.1 (`0` for any).
 *
 * @example
 * const api = await startMockAnthropic({ turns: [{ toolUses: [{ name: "Bash", input: { command: "ls" } }] }, "Done."] }, 0)
 * // ANTHROPIC_BASE_URL=api.url claude -p "list"
 * await api.close()
 */
export const startMockAnthropic = async (options: MockAnthropicOptions, listen: string | number): Promise<MockAnthropic> => {
  const requests: RecordedRequest[] = [];
  const isScripted = options.isScripted ?? defaultScripted;
  let next = 0;
  let ids = 0;
  let messages = 0;
  const nextId = (): string => `toolu_mock_${String(++ids).padStart(3, "0")}`;

  const answerFor = (recorded: RecordedRequest): MockAnswer => {
    if (!recorded.scripted) return { text: options.sideAnswer ?? "ok" };
    const index = requests.filter((r) => r.scripted).length - 1;
    const turn = options.turns[next] ?? options.whenDone ?? "Done.";
    if (next < options.turns.length) next++;
    const answer = typeof turn === "function" ? turn(recorded, index) : turn;
    return typeof answer === "string" ? { text: answer } : answer;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const raw = await readBody(req);
    let body: MessagesRequest | undefined;
    try {
      body = JSON.parse(raw) as MessagesRequest;
    } catch {
      body = undefined;
    }
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v;
    const isMessages = req.method === "POST" && path === "/v1/messages" && body !== undefined;
    const recorded: RecordedRequest = { method: req.method ?? "", path, headers, body, scripted: isMessages && isScripted(body!) };
    requests.push(recorded);
    if (req.method === "POST" && path === "/v1/messages/count_tokens") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ input_tokens: 100 }));
      return;
    }
    if (!isMessages) {
      res
        .writeHead(404, { "content-type": "application/json" })
        .end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: `mock: no ${req.method} ${path}` } }));
      return;
    }
    let answer: MockAnswer;
    try {
      answer = answerFor(recorded);
    } catch (error) {
      res
        .writeHead(500, { "content-type": "application/json" })
        .end(JSON.stringify({ type: "error", error: { type: "api_error", message: `mock script failed: ${(error as Error).message}` } }));
      return;
    }
    if (answer.error) {
      res
        .writeHead(answer.error.status, { "content-type": "application/json" })
        .end(JSON.stringify({ type: "error", error: { type: answer.error.type, message: answer.error.message } }));
      return;
    }
    const blocks = blocksOf(answer, nextId);
    const stopReason = answer.stopReason ?? (blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn");
    const id = `msg_mock_${String(++messages).padStart(3, "0")}`;
    const model = body!.model ?? "claude-mock";
    if (body!.stream === true) stream(res, id, model, blocks, stopReason);
    else
      res.writeHead(200, { "content-type": "application/json", "request-id": `req_${id}` }).end(
        JSON.stringify({
          id,
          type: "message",
          role: "assistant",
          model,
          content: blocks,
          stop_reason: stopReason,
          stop_sequence: null,
          usage,
        }),
      );
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    if (typeof listen === "string") server.listen(listen, () => resolve());
    else server.listen(listen, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  const url = typeof address === "object" && address !== null ? `http://127.0.0.1:${(address as AddressInfo).port}` : undefined;
  return {
    requests,
    scripted: () => requests.filter((r) => r.scripted),
    remaining: () => Math.max(0, options.turns.length - next),
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
