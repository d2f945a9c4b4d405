/**
 * A real HTTP server on 127.0.0.1 that answers the OpenAI Chat Completions API (`POST
 * /v1/chat/completions`) and the Responses API (`POST /v1/responses`), whole or streamed as
 * server-sent events, so that the real OpenAI clients of LangChain and the Agents SDK make real
 * requests with no network.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** What the server answers: the response id, the text (streamed in these chunks), the usage, and the pause between chunks. */
export interface CompletionScript {
  readonly id: string;
  readonly chunks: readonly string[];
  readonly usage: { readonly prompt_tokens: number; readonly completion_tokens: number };
  readonly chunkDelayMs?: number;
}

const body = async (req: IncomingMessage): Promise<Record<string, unknown>> => {
  let text = "";
  for await (const piece of req) text += String(piece);
  return JSON.parse(text) as Record<string, unknown>;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Start the server; `baseURL` ends in `/v1`; `requests` are the bodies it was sent. */
export const chatCompletionsServer = async (script: CompletionScript) => {
  const requests: Record<string, unknown>[] = [];
  const answer = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (req.method === "POST" && path.endsWith("/responses")) {
      const request = await body(req);
      requests.push(request);
      await responses(request, res);
      return;
    }
    if (req.method !== "POST" || !path.endsWith("/chat/completions")) {
      res.writeHead(404).end();
      return;
    }
    const request = await body(req);
    requests.push(request);
    const model = String(request.model);
    const usage = { ...script.usage, total_tokens: script.usage.prompt_tokens + script.usage.completion_tokens };
    const created = 1_700_000_000;
    if (request.stream !== true) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id: script.id,
          object: "chat.completion",
          created,
          model,
          choices: [{ index: 0, message: { role: "assistant", content: script.chunks.join("") }, finish_reason: "stop" }],
          usage,
        }),
      );
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const send = (chunk: Record<string, unknown>) =>
      res.write(`data: ${JSON.stringify({ id: script.id, object: "chat.completion.chunk", created, model, ...chunk })}\n\n`);
    send({ choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] });
    for (const text of script.chunks) {
      if (script.chunkDelayMs !== undefined) await sleep(script.chunkDelayMs);
      send({ choices: [{ index: 0, delta: { content: text }, finish_reason: null }] });
    }
    send({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] });
    send({ choices: [], usage });
    res.end("data: [DONE]\n\n");
  };
  const responses = async (request: Record<string, unknown>, res: ServerResponse): Promise<void> => {
    const model = String(request.model);
    const text = script.chunks.join("");
    const message = {
      type: "message",
      id: "msg_1",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text, annotations: [] }],
    };
    const usage = {
      input_tokens: script.usage.prompt_tokens,
      output_tokens: script.usage.completion_tokens,
      total_tokens: script.usage.prompt_tokens + script.usage.completion_tokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    };
    const response = (status: string, done: boolean) => ({
      id: script.id,
      object: "response",
      created_at: 1_700_000_000,
      status,
      model,
      output: done ? [message] : [],
      usage: done ? usage : null,
      parallel_tool_calls: true,
      tool_choice: "auto",
      tools: [],
    });
    if (request.stream !== true) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(response("completed", true)));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    let seq = 0;
    const send = (event: Record<string, unknown>) =>
      res.write(`event: ${String(event.type)}\ndata: ${JSON.stringify({ ...event, sequence_number: seq++ })}\n\n`);
    send({ type: "response.created", response: response("in_progress", false) });
    for (const delta of script.chunks) {
      if (script.chunkDelayMs !== undefined) await sleep(script.chunkDelayMs);
      send({ type: "response.output_text.delta", item_id: "msg_1", output_index: 0, content_index: 0, delta, logprobs: [] });
    }
    send({ type: "response.completed", response: response("completed", true) });
    res.end();
  };
  const server = createServer((req, res) => void answer(req, res).catch(() => res.destroy()));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
