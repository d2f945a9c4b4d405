/**
 * Redaction over a stream of text chunks. Text is released only once it is checked: the last
 * `holdBack` characters are always held (a secret can only be recognised once enough of it has
 * arrived), and so is any match that reaches into that window (it may still grow) and any match a
 * detector says is unfinished (a JWT before its signature). A secret split across chunks at any
 * index is therefore recognised whole before any of it is released. Held text is scanned with the
 * last released characters as look-behind context only, and a block is decided on whole matches
 * only, so the stream redacts and blocks what redacting the whole text at once would, with two
 * limits: a match held longer than `maxHold` is let out redacted as it stands (and the rest of
 * its token after it), and a pattern's look-behind sees at most 64 released characters.
 */
import { kindsOf, scan, unfinishedMatch, windowOf, type Detection } from "./detectors.ts";
import type { Redactor } from "./redactor.ts";
import { knownOptions } from "./options.ts";
import { ASSIGNMENT_REACH } from "./assignment-reach.ts";

/** What one step of a stream redactor lets out. */
export interface StreamStep {
  /** Checked, rewritten text safe to release (may be empty). */
  readonly text: string;
  /** Kinds whose strategy is `block` found in the text seen so far; once non-empty, nothing more is released. */
  readonly blocked: readonly string[];
}

/** Options of a stream redactor: how many characters it holds back. */
export interface StreamRedactorOptions {
  /** Characters always held back; default the largest window of the redactor's detectors. */
  readonly holdBack?: number;
  /**
   * Most characters held for one growing or unfinished match (a token that keeps going). Past it
   * the match is released redacted as it stands, and the rest of its token is redacted as it
   * comes (with `mask`, each piece shows its own last four). Default 4096.
   */
  readonly maxHold?: number;
}

/**
 * Characters of released text kept as look-behind context for the next scan: a secret's name
 * before its value (`"client_secret": "`, see `ASSIGNMENT_REACH`) and `(?<!...)` guards. A
 * custom pattern's look-behind sees no further back in a stream.
 */
const context = ASSIGNMENT_REACH;

/** What continues a match let out past maxHold: token characters (a quote, comma, brace or space ends it). */
const tokenRun = /^[A-Za-z0-9._%+/=@-]*/;

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
  /** The kind of a match released in part because it outgrew maxHold, while its token may go on. */
  private continuing: string | undefined;
  private readonly blocked = new Set<string>();
  private readonly holdBack: number;
  private readonly maxHold: number;

  constructor(
    private readonly redactor: Redactor,
    options: StreamRedactorOptions = {},
  ) {
    knownOptions("StreamRedactor", options, { holdBack: true, maxHold: true });
    this.holdBack = options.holdBack ?? windowOf(redactor.detectors);
    this.maxHold = options.maxHold ?? 4096;
    if (!Number.isSafeInteger(this.holdBack) || this.holdBack < 0)
      throw new TypeError(`redaction: holdBack must be a non-negative integer, got ${String(options.holdBack)}`);
    if (!Number.isSafeInteger(this.maxHold) || this.maxHold < this.holdBack)
      throw new TypeError(`redaction: maxHold must be an integer of at least holdBack, got ${String(options.maxHold)}`);
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
    const held = this.held;
    const detectors = this.redactor.detectors;
    // A match released in part (it outgrew maxHold) goes on while its token does: that is redacted too.
    let lead = 0;
    if (this.continuing !== undefined) {
      lead = tokenRun.exec(held)?.[0].length ?? 0;
      if (lead === held.length && !final && lead <= this.maxHold) return this.step(""); // it may go on still
    }
    // Released text is look-behind context only: matches start in the held text, as they would in the whole.
    const text = this.tail + held;
    const shift = this.tail.length;
    const found: Detection[] = [];
    for (const d of scan(text, detectors, shift)) found.push({ ...d, start: d.start - shift, end: d.end - shift });
    if (lead > 0) {
      // The rest of the token is one span with any match it overlaps, whose kinds still count (a block blocks).
      const kind = this.continuing as string;
      let end = lead;
      const also = new Set<string>();
      let k = 0;
      for (; k < found.length && (found[k] as Detection).start < end; k++) {
        const d = found[k] as Detection;
        end = Math.max(end, d.end);
        for (const other of kindsOf(d)) if (other !== kind) also.add(other);
      }
      found.splice(0, k, also.size > 0 ? { kind, start: 0, end, also: [...also] } : { kind, start: 0, end });
    }
    let cut = final ? held.length : held.length - this.holdBack;
    let forced: string | undefined;
    if (!final) {
      // A match not recognisable yet (a JWT before its signature) is held from where it starts.
      const partial = unfinishedMatch(text, detectors, shift + lead);
      if (partial !== undefined && partial.start - shift < cut) {
        const unfinished = partial.start - shift;
        if (held.length - unfinished <= this.maxHold) cut = unfinished;
        else {
          // Too long to hold: release it redacted as it stands, with any match it overlaps (their
          // kinds kept, so a block still blocks), and redact what follows of its token. The span
          // is named by a match it overlaps that starts no later (one recognised already), else by
          // the unfinished one; if that kind blocks, it blocks: what it might be is not let out.
          const kinds = [partial.kind];
          let start = unfinished;
          while (found.length > 0 && (found[found.length - 1] as Detection).end > unfinished) {
            const d = found.pop() as Detection;
            if (d.start <= start) (start = d.start), kinds.unshift(...kindsOf(d));
            else kinds.push(...kindsOf(d));
          }
          forced = kinds[0] as string;
          const also = [...new Set(kinds.slice(1))].filter((kind) => kind !== forced);
          found.push(also.length > 0 ? { kind: forced, start, end: held.length, also } : { kind: forced, start, end: held.length });
          cut = held.length;
        }
      }
      for (const d of found) {
        if (d.start < cut && d.end > cut) {
          // A match reaching into the held window may still grow: hold all of it, unless it grew too long.
          if (held.length - d.start > this.maxHold) (cut = d.end), (forced = d.kind);
          else cut = d.start;
          break;
        }
      }
    }
    if (cut >= lead) this.continuing = undefined; // the token it went on in is out whole (or there was none)
    // Only matches that are whole (released now) decide a block: a part of one may be another kind.
    const released = found.filter((d) => d.end <= cut);
    for (const d of released) for (const kind of kindsOf(d)) if (this.redactor.strategyOf(kind) === "block") this.blocked.add(kind);
    if (this.blocked.size > 0) {
      // Blocking is about the whole answer: stop releasing anything, including what was clean.
      this.held = "";
      return this.step("");
    }
    if (forced !== undefined) this.continuing = forced;
    if (cut <= 0) return this.step("");
    // Never split a surrogate pair between released and held text.
    const code = held.charCodeAt(cut - 1);
    if (!final && code >= 0xd800 && code <= 0xdbff && !released.some((d) => d.end === cut)) cut--;
    const out = held.slice(0, cut);
    this.tail = (this.tail + out).slice(-context);
    this.held = held.slice(cut);
    return this.step(this.redactor.apply(out, released));
  }

  private step(text: string): StreamStep {
    return { text, blocked: [...this.blocked] };
  }
}
