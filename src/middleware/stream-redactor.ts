/**
 * Redaction over a stream of text chunks. Text is released only once it is checked: the last
 * `holdBack` characters are always held (a secret can only be recognised once enough of it has
 * arrived), and so is any match that reaches into that window (it may still grow). A secret
 * split across chunks at any index is therefore recognised whole before any of it is released.
 */
import { scan, windowOf } from "./detectors.ts";
import type { Redactor } from "./redactor.ts";

/** What one step of a stream redactor lets out. */
export interface StreamStep {
  /** Checked, rewritten text safe to release (may be empty). */
  readonly text: string;
  /** Kinds whose strategy is `block` found in the text seen so far; once non-empty, nothing more is released. */
  readonly blocked: readonly string[];
}

export interface StreamRedactorOptions {
  /** Characters always held back; default the largest window of the redactor's detectors. */
  readonly holdBack?: number;
  /**
   * Most characters held for one growing match (a token that keeps going). Past it the match is
   * released redacted as it stands, and the rest of it is a new match. Default 4096.
   */
  readonly maxHold?: number;
}

/** Characters of released text kept as look-behind context for the next scan (for `(?<!...)` guards). */
const context = 16;

/**
 * A stream redactor: `push` each chunk, release what it returns, `end` at the end of the stream.
 *
 * @example
 * const s = new StreamRedactor(createRedactor())
 * const out = s.push("key: sk-abc").text + s.push("defghijklmnopqrstuvwxyz\n").text + s.end().text
 * out // "key: [REDACTED:api_key]\n"
 */
export class StreamRedactor {
  private held = "";
  private tail = "";
  private readonly blocked = new Set<string>();
  private readonly holdBack: number;
  private readonly maxHold: number;

  constructor(
    private readonly redactor: Redactor,
    options: StreamRedactorOptions = {},
  ) {
    this.holdBack = options.holdBack ?? windowOf(redactor.detectors);
    this.maxHold = options.maxHold ?? 4096;
    if (!Number.isSafeInteger(this.holdBack) || this.holdBack < 0) throw new TypeError(`redaction: holdBack must be a non-negative integer, got ${String(options.holdBack)}`);
    if (!Number.isSafeInteger(this.maxHold) || this.maxHold < this.holdBack) throw new TypeError(`redaction: maxHold must be an integer of at least holdBack, got ${String(options.maxHold)}`);
  }

  /** Text not yet released. */
  get pending(): string {
    return this.held;
  }

  /** Take a chunk; returns what may be released now. */
  push(chunk: string): StreamStep {
    if (this.blocked.size > 0) return this.step("");
    this.held += chunk;
    return this.drain(false);
  }

  /** The stream ended: release the rest, checked. */
  end(): StreamStep {
    if (this.blocked.size > 0) return this.step("");
    return this.drain(true);
  }

  private drain(final: boolean): StreamStep {
    const text = this.tail + this.held;
    const shift = this.tail.length;
    const found = [];
    for (const d of scan(text, this.redactor.detectors)) {
      if (d.end <= shift) continue; // entirely in released text: already handled
      const start = Math.max(0, d.start - shift);
      found.push({ kind: d.kind, start, end: d.end - shift });
      if (this.redactor.strategyOf(d.kind) === "block") this.blocked.add(d.kind);
    }
    if (this.blocked.size > 0) {
      // Blocking is about the whole answer: stop releasing anything, including what was clean.
      this.held = "";
      return this.step("");
    }
    let cut = final ? this.held.length : this.held.length - this.holdBack;
    for (const d of found) {
      if (d.start < cut && d.end > cut) {
        // A match reaching into the held window may still grow: hold all of it, unless it grew too long.
        cut = this.held.length - d.start > this.maxHold ? d.end : d.start;
        break;
      }
    }
    if (cut <= 0) return this.step("");
    // Never split a surrogate pair between released and held text.
    const code = this.held.charCodeAt(cut - 1);
    if (!final && code >= 0xd800 && code <= 0xdbff) cut--;
    const released = this.held.slice(0, cut);
    const out = this.redactor.apply(released, found.filter((d) => d.end <= cut));
    this.tail = (this.tail + released).slice(-context);
    this.held = this.held.slice(cut);
    return this.step(out);
  }

  private step(text: string): StreamStep {
    return { text, blocked: [...this.blocked] };
  }
}
