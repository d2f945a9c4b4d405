/**
 * The tools an MCP server listed, so that `wrapMcpClient` sends a call only to a name the server
 * listed: the name the hooks judged is then the tool the server runs. A server may find a tool by a
 * looser name than the one it lists (case folded, Unicode compatibility forms folded, a prefix): a
 * call to `Delete_Repo` would run `delete_repo` there while a rule on `delete_repo` never matched
 * it. The names come from every `tools/list` answer the wrapped client gets, and from a listing of
 * the adapter's own when a call names a tool it does not know (the first call of a client that never
 * listed, a tool the server added since): one listing at a time, every page of it.
 */

/** One page of a `tools/list` answer: the fields read here. */
interface ListPage {
  readonly tools?: readonly { readonly name?: unknown }[];
  readonly nextCursor?: unknown;
}

/**
 * Lists one page of the server's tools (the cursor of the page, none for the first).
 *
 * @example
 * const list: ListTools = (cursor) => client.listTools(cursor === undefined ? undefined : { cursor })
 */
export type ListTools = (cursor: string | undefined) => Promise<unknown>;

/** A server that answers page after page is cut off here: its tools are what was read by then. */
const maxPages = 100;

/**
 * The names of the tools a server listed, as far as the client knows them.
 *
 * @example
 * const tools = new ListedTools((cursor) => client.listTools(cursor === undefined ? undefined : { cursor }))
 * await tools.listed("Delete_Repo", signal) // false when the server listed only delete_repo
 */
export class ListedTools {
  private names: Set<string> | undefined;
  private listing: Promise<void> | undefined;

  constructor(private readonly list: ListTools | undefined) {}

  /**
   * Record a `tools/list` answer the client got: a first page (no cursor asked) starts the list
   * afresh, a later page adds to it.
   */
  saw(params: unknown, answer: unknown): void {
    const names = namesOf(answer);
    if (names === undefined) return;
    const cursor = (params as { readonly cursor?: unknown } | undefined)?.cursor;
    if (cursor === undefined || this.names === undefined) this.names = new Set(names);
    else for (const name of names) this.names.add(name);
  }

  /** True when the server listed `name`, without asking it: the usual call, answered at once. */
  known(name: string): boolean {
    return this.names?.has(name) === true;
  }

  /**
   * Whether the server lists `name`, listing its tools again when the name is not known: false for a
   * name it does not list, undefined when its tools cannot be listed (no way to list, or the listing
   * failed). The listing is shared by the calls that wait for it, so none of their signals stops it
   * (the SDK's request timeout does); each stops waiting when its own aborts, with its reason.
   */
  async listed(name: string, signal: AbortSignal): Promise<boolean | undefined> {
    if (this.known(name)) return true;
    if (this.list === undefined) return undefined;
    this.listing ??= this.relist(this.list).finally(() => (this.listing = undefined));
    const done = await untilAborted(this.listing, signal).then(
      () => true,
      (error: unknown) => {
        if (signal.aborted) throw error;
        return false;
      },
    );
    if (!done || this.names === undefined) return undefined;
    return this.names.has(name);
  }

  private async relist(list: ListTools): Promise<void> {
    const names = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < maxPages; page++) {
      const answer = await list(cursor);
      const page = namesOf(answer);
      // Not a listing (a client whose `request` answers something else): the tools cannot be listed.
      if (page === undefined) throw new TypeError("the client's tools/list answer has no tools");
      for (const name of page) names.add(name);
      const next = (answer as ListPage | undefined)?.nextCursor;
      if (typeof next !== "string" || next === "") break;
      cursor = next;
    }
    this.names = names;
  }
}

/** `promise`, or a rejection with the signal's reason once it aborts. */
const untilAborted = <T>(promise: Promise<T>, signal: AbortSignal): Promise<T> => {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const abort = (): void => reject(signal.reason);
    signal.addEventListener("abort", abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
  });
};

const namesOf = (answer: unknown): string[] | undefined => {
  const tools = (answer as ListPage | undefined)?.tools;
  if (!Array.isArray(tools)) return undefined;
  return tools.flatMap((t: { readonly name?: unknown }) => (typeof t?.name === "string" ? [t.name] : []));
};

/**
 * What the MCP SDK's own server (`McpServer`) answers a call to a tool it does not have: an error
 * result naming it, so the model reads why and the caller does not crash.
 *
 * @example
 * unknownToolResult("Delete_Repo") // { isError: true, content: [{ type: "text", text: "MCP error -32602: Tool Delete_Repo not found" }] }
 */
export const unknownToolResult = (name: string) => ({
  content: [{ type: "text", text: `MCP error -32602: Tool ${name} not found` }],
  isError: true,
});
