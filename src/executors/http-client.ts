/**
 * One guarded HTTP POST (E1–E5): the SSRF guard on every connection (resolved names in the
 * socket's `lookup`, IP literals before connecting), separate connect, header and body
 * deadlines plus an overall one, a body size cap, and no redirects (node:http never follows
 * them; a 3xx is returned as it is and refused by the caller).
 */
import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import { stopListening } from "../core/signal.ts";
import { ExecutorError } from "./errors.ts";
import { checkAddress, guardedLookup, type AddressPolicy, type Resolver } from "./ssrf.ts";

export interface PostOptions {
  readonly url: URL;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly policy: AddressPolicy;
  readonly resolver?: Resolver | undefined;
  /** Until the TCP connection is up. */
  readonly connectTimeoutMs: number;
  /** Until the response headers arrived, from the start. */
  readonly headersTimeoutMs: number;
  /** Until the whole body arrived, from the headers: a dripping server cannot hold us. */
  readonly bodyTimeoutMs: number;
  /** Everything, whatever the phases say. */
  readonly deadlineMs: number;
  readonly maxBodyBytes: number;
  readonly signal?: AbortSignal | undefined;
}

export interface PostResult {
  readonly status: number;
  readonly body: Buffer;
}

/**
 * POST `body` as JSON and collect the answer, or reject with an `ExecutorError`.
 *
 * @example
 * const { status, body } = await postJson({ url: new URL("http://127.0.0.1:8080/hook"), body: "{}", headers: {},
 *   policy: { loopback: true }, connectTimeoutMs: 1000, headersTimeoutMs: 5000, bodyTimeoutMs: 5000, deadlineMs: 10000, maxBodyBytes: 1 << 20 })
 */
export const postJson = (o: PostOptions): Promise<PostResult> =>
  new Promise((resolve, reject) => {
    const host = o.url.hostname.replace(/^\[|\]$/g, "");
    try {
      // Node connects to IP literals without calling `lookup`: check them here.
      if (isIP(host)) checkAddress(host, o.policy, o.url.hostname);
    } catch (error) {
      return reject(error);
    }
    if (o.signal?.aborted) return reject(new ExecutorError("aborted", "the run was cancelled before the request"));
    const timers: NodeJS.Timeout[] = [];
    let done = false;
    const finish = (error: Error | undefined, result?: PostResult): void => {
      if (done) return;
      done = true;
      for (const t of timers) clearTimeout(t);
      stopListening(o.signal, onAbort);
      if (error) {
        req.destroy();
        reject(
          error instanceof ExecutorError
            ? error
            : new ExecutorError("network", `request to ${o.url.origin} failed: ${error.message}`, { cause: error }),
        );
      } else resolve(result!);
    };
    const after = (ms: number, message: string): NodeJS.Timeout => {
      const t = setTimeout(() => finish(new ExecutorError("timeout", message)), ms);
      timers.push(t);
      return t;
    };
    const onAbort = (): void => finish(new ExecutorError("aborted", "the run was cancelled; the request was dropped"));

    const mod = o.url.protocol === "https:" ? https : http;
    const req = mod.request(o.url, {
      method: "POST",
      headers: { ...o.headers, "content-type": "application/json", "content-length": Buffer.byteLength(o.body), connection: "close" },
      lookup: guardedLookup(o.policy, o.resolver) as never,
      agent: false, // a fresh connection per request, so every connection goes through the guard
    });
    const connectTimer = after(o.connectTimeoutMs, `could not connect to ${o.url.origin} within ${o.connectTimeoutMs} ms`);
    const headersTimer = after(o.headersTimeoutMs, `no response headers from ${o.url.origin} within ${o.headersTimeoutMs} ms`);
    after(o.deadlineMs, `no complete answer from ${o.url.origin} within ${o.deadlineMs} ms`);
    o.signal?.addEventListener("abort", onAbort, { once: true });

    req.once("socket", (socket) => socket.once("connect", () => clearTimeout(connectTimer)));
    req.on("error", (error) => finish(error)); // `on`, not `once`: destroy() may emit a second error
    req.once("response", (res) => {
      clearTimeout(headersTimer);
      clearTimeout(connectTimer);
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400) {
        res.resume();
        return finish(undefined, { status, body: Buffer.alloc(0) }); // never read, never followed
      }
      after(o.bodyTimeoutMs, `the body from ${o.url.origin} did not complete within ${o.bodyTimeoutMs} ms`);
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > o.maxBodyBytes)
          return finish(new ExecutorError("output-too-large", `the body from ${o.url.origin} is larger than ${o.maxBodyBytes} bytes`));
        chunks.push(chunk);
      });
      res.once("end", () => finish(undefined, { status, body: Buffer.concat(chunks) }));
      res.on("error", (error) => finish(error));
      res.once("aborted", () => finish(new ExecutorError("network", `the connection to ${o.url.origin} closed mid-body`)));
    });
    req.end(o.body);
  });
