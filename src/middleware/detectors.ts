/**
 * Detectors: find PII and secrets in text. Each detector knows its `kind` (the label a
 * redaction shows) and its `window`: how many characters a stream must hold back so that a
 * match can be recognised before any of it is released. The built-in detectors look only where
 * a cheap search says a match may be (an at sign, a stretch of digits, a colon between hex
 * digits, a long run of token characters: see `secret-detectors.ts`), and every pattern they
 * run there is linear, so scanning is linear in the text (no ReDoS on 10 MB tool outputs). They
 * read text as a reader sees it (see `readingVisible`): invisible characters inside a match do
 * not break it, and no-break spaces separate digits as spaces do.
 */
import { isIPv6 } from "node:net";
import {
  apiKey as knownTokens,
  privateKey as pemPrivateKey,
  secretAssignment as namedSecret,
  urlCredentials as urlPassword,
} from "./secret-detectors.ts";
import { MIN_RUN, unescapedStart } from "./token-runs.ts";
import { codeUnits, firstSparseWindowIn } from "./char-windows.ts";
import { digitGroupSpace, readingVisible } from "./visible-text.ts";
import { compileLinearSearch, RegExpRefusedError, type LinearSearch } from "../core/match/linear-regexp.ts";
import { knownOptions } from "./options.ts";

/** One match: `text.slice(start, end)` is the sensitive part. */
export interface Detection {
  readonly kind: string;
  readonly start: number;
  readonly end: number;
  /** Kinds of other matches that overlapped this one and were merged into its span (see `scan`). */
  readonly also?: readonly string[];
}

/** Something that finds sensitive spans in text. */
export interface Detector {
  /** The label redactions show (`[REDACTED:<kind>]`) and strategies are chosen by. */
  readonly kind: string;
  /** Characters a stream must hold back so a match is recognised before its first character is released. */
  readonly window: number;
  /** No match is shorter than this (default 1): `scan` skips the detector on shorter text. */
  readonly minLength?: number;
  /**
   * Every match in `text` that starts at or after `from` (default 0), in any order; the text
   * before `from` is context only (for look-behinds). Overlaps are resolved by `scan`.
   */
  find(text: string, from?: number): Iterable<{ readonly start: number; readonly end: number }>;
  /**
   * Where an unfinished match starts (at or after `from`; earlier text is look-behind context),
   * if `text` ends inside one that `window` characters cannot recognise yet (a JWT is recognised
   * only at its signature): a stream holds text from there.
   */
  partial?(text: string, from?: number): number | undefined;
}

/** Options of `pattern`: how much text to see before a match, and how to check one. */
export interface PatternOptions {
  /** Characters that must be seen before a match is recognised; default 128. */
  readonly window?: number;
  /**
   * Extra check on a candidate match (a checksum, a parser); false drops it, and the scan tries
   * again one character on, so what is found does not depend on where scanning started. Give
   * such a pattern bounded quantifiers or a look-behind that stops it starting inside a run:
   * otherwise a long run of rejected candidates takes time proportional to its length squared.
   */
  readonly validate?: (match: string) => boolean;
  /** An unfinished match at the end of the text (it must end with `$`), for matches longer than `window` before they are recognisable. */
  readonly partial?: RegExp;
}

/**
 * A detector from a regular expression (the `g` flag is added when missing). Your pattern runs on
 * a linear-time engine (RE2, through re2js), so no text can make it backtrack for seconds: what
 * RE2 cannot run in linear time (look-arounds, back-references) is refused here, with a
 * `TypeError` that names the detector and says how to rewrite it. The flags `i`, `m` and `s` are
 * read as RE2 reads them (`m`: lines end at `\n` only), `u` as JavaScript reads it (Unicode
 * property escapes included); `v` and `y` are refused. The built-in detectors run their own
 * patterns, reviewed for linear time, on the JavaScript engine.
 *
 * @example
 * const ticket = pattern("ticket", /TCK-\d{6}/, { window: 10 })
 * scan("see TCK-123456", [ticket]) // [{ kind: "ticket", start: 4, end: 14 }]
 */
export const pattern = (kind: string, regex: RegExp, options: PatternOptions = {}): Detector => {
  check(kind, regex, options);
  const search = linear(kind, regex);
  const partial = options.partial === undefined ? undefined : linear(kind, options.partial);
  const validate = options.validate;
  const unicode = regex.unicode;
  return {
    kind,
    window: options.window ?? 128,
    *find(text, from = 0) {
      for (let found = search.find(text, from); found !== undefined; found = search.find(text, from)) {
        const [start, end] = found;
        if (end > start && (validate === undefined || validate(text.slice(start, end)))) {
          yield { start, end };
          from = end;
        }
        // An empty or rejected candidate consumes nothing: the next try starts one character on (a
        // whole surrogate pair with the u flag), so what is found does not depend on where scanning began.
        else from = step(text, start, unicode);
      }
    },
    ...(partial === undefined ? {} : { partial: (text: string, from = 0) => partial.find(text, from)?.[0] }),
  };
};

/** A user's pattern compiled for linear time, or refused naming the detector. */
const linear = (kind: string, regex: RegExp): LinearSearch => {
  try {
    return compileLinearSearch(regex.source, regex.flags);
  } catch (error) {
    // A TypeError, as for pattern()'s other mistakes; the engine's reason is its cause.
    if (error instanceof RegExpRefusedError)
      throw new TypeError(`pattern "${kind}": /${regex.source}/${regex.flags} ${error.message}`, { cause: error });
    throw error;
  }
};

/** What `pattern` checks of its arguments, whichever engine runs it. */
const check = (kind: string, regex: RegExp, options: PatternOptions): void => {
  if (typeof kind !== "string" || kind === "") throw new TypeError("pattern: kind must be a non-empty string");
  if (!(regex instanceof RegExp)) throw new TypeError(`pattern "${kind}": regex must be a RegExp`);
  knownOptions(`pattern "${kind}"`, options, { window: true, validate: true, partial: true });
  const window = options.window ?? 128;
  if (!Number.isSafeInteger(window) || window < 1)
    throw new TypeError(`pattern "${kind}": window must be a positive integer, got ${String(window)}`);
  const partial = options.partial;
  if (partial !== undefined && !(partial instanceof RegExp && /(?<!\\)\$$/.test(partial.source) && !partial.multiline))
    throw new TypeError(`pattern "${kind}": partial must be a RegExp ending with $ (and without the m flag)`);
};

/** One character on from `at`: past a whole surrogate pair for a unicode regex, which would otherwise step back to the pair's start and find the same candidate forever. */
const step = (text: string, at: number, unicode: boolean): number => {
  if (unicode) {
    const code = text.charCodeAt(at);
    if (code >= 0xd800 && code <= 0xdbff && at + 1 < text.length) return at + 2;
  }
  return at + 1;
};

/**
 * `pattern` for the built-in detectors: their patterns (reviewed for linear time on the JavaScript
 * engine, look-behinds included, and tested on hostile input) run on the engine's own regular
 * expressions, many times faster than re2js.
 */
const builtinPattern = (kind: string, regex: RegExp, options: PatternOptions = {}): Detector => {
  check(kind, regex, options);
  const window = options.window ?? 128;
  // Our own global copy: a caller's `lastIndex` must never leak into our scans, nor ours into theirs.
  const flags = regex.flags.includes("g") ? regex.flags : `${regex.flags}g`;
  const source = regex.source;
  const validate = options.validate;
  const partial = options.partial;
  const unfinished =
    partial === undefined ? undefined : new RegExp(partial.source, partial.flags.includes("g") ? partial.flags : `${partial.flags}g`);
  const unicode = regex.unicode || regex.flags.includes("v");
  let idle: RegExp | undefined = new RegExp(source, flags);
  return {
    kind,
    window,
    *find(text, from = 0) {
      // One regex kept for reuse (a scan of many short strings would allocate one per string),
      // and a fresh one when it is in use by a scan paused at a yield.
      const re = idle ?? new RegExp(source, flags);
      idle = undefined;
      try {
        re.lastIndex = from;
        for (let m = re.exec(text); m !== null; m = re.exec(text)) {
          if (m[0] === "") {
            re.lastIndex = step(text, m.index, unicode); // an empty match would loop forever
            continue;
          }
          if (validate === undefined || validate(m[0])) yield { start: m.index, end: m.index + m[0].length };
          // A rejected candidate consumes nothing: the next try starts one character on, so what is
          // found does not depend on where scanning began (a stream scans from its held text on).
          else re.lastIndex = step(text, m.index, unicode);
        }
      } finally {
        idle = re;
      }
    },
    ...(unfinished === undefined
      ? {}
      : {
          partial: (text: string, from = 0) => {
            unfinished.lastIndex = from;
            return unfinished.exec(text)?.index;
          },
        }),
  };
};

/**
 * The Luhn checksum of the digits in `text` (spaces, no-break and thin ones included, and dashes ignored).
 *
 * @example
 * luhn("4111 1111 1111 1111") // true
 */
export const luhn = (text: string): boolean => {
  // One pass from the right, no copies: a scan checks a candidate at every digit of a long run.
  let sum = 0;
  let n = 0;
  for (let i = text.length - 1; i >= 0; i--) {
    const code = text.charCodeAt(i);
    if (code === 32 || code === 45 || code === 0xa0 || code === 0x2009 || code === 0x202f) continue; // space, dash, the spaces that group digits
    let d = code - 48;
    if (d < 0 || d > 9) return false;
    if (n++ % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return n > 0 && sum % 10 === 0;
};

/**
 * Shannon entropy of `text` in bits per character.
 *
 * @example
 * entropy("aaaa") // 0
 */
export const entropy = (text: string): number => {
  const counts = new Map<string, number>();
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
};

const digitCount = (s: string): number => s.replace(/\D/g, "").length;

const classOf = (code: number): number => (code >= 48 && code <= 57 ? 0 : code >= 65 && code <= 90 ? 1 : code >= 97 && code <= 122 ? 2 : 3);

/** The share of neighbouring characters of different classes (digit, upper, lower, other): about 0.6 for random tokens, about 0.4 for camelCase identifiers. */
const mixing = (s: string): number => {
  let changes = 0;
  for (let i = 1; i < s.length; i++) if (classOf(s.charCodeAt(i)) !== classOf(s.charCodeAt(i - 1))) changes++;
  return changes / Math.max(1, s.length - 1);
};

/**
 * What an address's local part is made of besides `_.%+-`: letters, marks and digits of scripts
 * written with spaces between words (`jürgen@`, `алиса@`). In Chinese, Japanese, Thai and the like
 * the words around an address touch it (`请联系bob@example.com谢谢`), so their letters are not taken
 * for part of it, except in its domain (`user@例え.jp`).
 */
const spacedLetter =
  "[[\\p{L}\\p{M}\\p{N}]--[\\p{sc=Han}\\p{sc=Hiragana}\\p{sc=Katakana}\\p{sc=Thai}\\p{sc=Lao}\\p{sc=Khmer}\\p{sc=Myanmar}]]";
const localChar = `[${spacedLetter}_.%+\\-]`;
const label = "[\\p{L}\\p{M}\\p{N}\\-]{1,63}";

/**
 * A top-level domain is written in one script (`.com`, `.рф`, `.한국`, `.みんな`), so one in these
 * ends where the script changes: Korean attaches particles to the word before
 * (`bob@example.com입니다`), and a Russian word may follow an address with no space. Han, Hiragana
 * and Katakana count apart (`.日本` before `です`). One in another script ends at a space,
 * punctuation or a script written without spaces; each script listed costs a test at every
 * candidate, and these are the ones most text around addresses is written in.
 */
const domainScripts = ["Latin", "Cyrillic", "Greek", "Hebrew", "Arabic", "Devanagari", "Thai", "Hangul", "Han", "Hiragana", "Katakana"];
const letterOf = (script: string): string => `[\\p{scx=${script}}&&\\p{L}]`;
/** The end of a top-level domain in `script`: not followed by more of its letters, by a mark, a digit, `_` or `-`. */
const endOf = (script: string): string => `(?!${letterOf(script)}|[\\p{M}\\p{N}_\\-])`;
// Two letters first: most candidates fail there, before any script is tried.
const topLevelDomain = `(?=[\\p{L}\\p{M}]{2})(?:${[
  ...domainScripts.map((script) => `[${letterOf(script)}\\p{M}]{2,24}${endOf(script)}`),
  `xn--[A-Za-z0-9\\-]{1,59}${endOf("Latin")}`,
  // Letters of any other script, up to a space, punctuation or the scripts written without spaces.
  `[\\p{L}\\p{M}]{2,24}(?![${spacedLetter}_\\-])`,
].join("|")})`;

/** The at sign, written as such or encoded: `%40` in a URL, `\u0040` in JSON, `&#64;` or `&#x40;` in HTML. */
const atSign = "(?:@|%40|\\\\u0040|&#0*64;|&#[xX]0*40;)";
const atSigns = ["@", "%40", "\\u0040", "&#"];
// Both are built on first use: compiling their Unicode sets costs a few ms, which importing the
// package (and every `claude-hook` process) must not pay when no text is scanned for addresses.
let addressPattern: RegExp | undefined;
let localCharPattern: RegExp | undefined;
/** An address from the start of its local part, which the scan finds itself (see `localStart`). */
const address = (): RegExp =>
  (addressPattern ??= new RegExp(`${localChar}{1,64}${atSign}${label}(?:\\.${label}){0,8}\\.(?:${topLevelDomain})`, "vy"));
const isLocalChar = (): RegExp => (localCharPattern ??= new RegExp(`^${localChar}$`, "v"));
const ASCII_LOCAL = new Uint8Array(128);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.%+-") ASCII_LOCAL[c.charCodeAt(0)] = 1;

/** Where the local part ending before `at` starts, or -1 when it is longer than 64 characters (no address). */
const localStart = (text: string, at: number): number => {
  let s = at;
  while (s > 0) {
    const c = text[s - 1] as string;
    const code = c.charCodeAt(0);
    if (
      code < 128
        ? ASCII_LOCAL[code] !== 1
        : code >= 0xdc00 && code <= 0xdfff
          ? !isLocalChar().test(text.slice(s - 2, s))
          : !isLocalChar().test(c)
    )
      break;
    s -= code >= 0xdc00 && code <= 0xdfff && s >= 2 ? 2 : 1;
    if (at - s > 64 + 6) return -1;
  }
  return s;
};

/**
 * Whether a domain could follow at `at`: a dot before the next space, quote or bracket (within
 * 700 characters), and a letter after it. Most near misses (`a@b c`, `user@host`, `@scope/pkg`)
 * end here, before the address pattern, which is costly to try.
 */
const dotAfter = (text: string, at: number): boolean => {
  const end = Math.min(text.length, at + 700);
  for (let i = at; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 46) {
      const next = text.charCodeAt(i + 1);
      if ((next | 32) >= 97 && (next | 32) <= 122) return true;
      if (next >= 128) return true;
      if (next !== 45 && !(next >= 48 && next <= 57)) return false;
    } else if (
      c <= 32 ||
      c === 34 ||
      c === 39 ||
      c === 60 ||
      c === 62 ||
      c === 40 ||
      c === 41 ||
      c === 44 ||
      c === 59 ||
      c === 47 ||
      c === 64
    )
      return false;
  }
  return false;
};

/** A user in a URL (`https://bob@host`, `postgres://app:pw@db`) is not an address: the part after its `@` is a host. */
const inUrl = (text: string, start: number): boolean => {
  const before = text.charCodeAt(start - 1);
  if (before !== 58 && before !== 47) return false; // : or /
  // Looked for in the 260 characters before only: a search back through the whole text per at sign would cost its length.
  const lo = Math.max(0, start - 260);
  const piece = text.slice(lo, start + 3);
  const sep = piece.lastIndexOf("://", start - lo);
  return sep !== -1 && !/\s/.test(piece.slice(sep, start - lo));
};

/**
 * Email addresses (local part up to 64, up to 8 domain labels), internationalised ones included,
 * and with the at sign URL-, JSON- or HTML-encoded (`alice%40example.com`, `alice\u0040example.com`).
 *
 * @example
 * scan("bob@example.com", [email])[0]?.kind // "email"
 */
// Its window: the longest text before an address with one domain label is recognisable (64 + @ +
// 63 + . + 2, and one character to end it); an address with more labels (up to about 640
// characters) is held from its start while it is unfinished. A top-level domain is letters, ending
// where their script changes (see `domainScripts`), or punycode (`.xn--p1ai`). Only text around an
// at sign is read: the address pattern runs from the start of the local part before each.
export const email: Detector = readingVisible({
  kind: "email",
  window: 132,
  minLength: 6,
  *find(text, from = 0) {
    let done = 0;
    for (const sign of atSigns) {
      for (let at = text.indexOf(sign); at !== -1; at = text.indexOf(sign, at + 1)) {
        if (at < done && sign === "@") continue;
        let s = localStart(text, at);
        if (s === -1 || s === at) continue;
        s = unescapedStart(text, s, at);
        // An encoded character before an address is not part of it (`%3Calice%40…`).
        while (s + 3 <= at && text.charCodeAt(s) === 37 && /^%[0-9A-Fa-f]{2}$/.test(text.slice(s, s + 3))) s += 3;
        // An HTML entity's at sign ends at its `;` (`&#64;`, `&#x40;`).
        const after = sign === "&#" ? text.indexOf(";", at) + 1 : at + sign.length;
        if (s >= at || s < from || after <= at || inUrl(text, s) || !dotAfter(text, after)) continue;
        const re = address();
        re.lastIndex = s;
        const m = re.exec(text);
        if (m === null) continue;
        // `git@github.com:owner/repo.git` is an SSH remote (a host and a path), not an address.
        if (text.charCodeAt(s + m[0].length) === 58 && /[\w~/.-]/.test(text[s + m[0].length + 1] ?? "")) continue;
        yield { start: s, end: s + m[0].length };
        if (sign === "@") done = s + m[0].length;
      }
    }
  },
  partial: (() => {
    const unfinished = new RegExp(`(?<!${localChar})${localChar}{1,64}${atSign}[\\p{L}\\p{M}\\p{N}.\\-]{0,640}$`, "vg");
    return (text: string, from = 0) => {
      // Only the last address can be unfinished: look from the last at sign's local part.
      const at = Math.max(text.lastIndexOf("@"), text.lastIndexOf("%40"), text.lastIndexOf("\\u0040"), text.lastIndexOf("&#"));
      if (at === -1 || text.length - at > 700) return undefined;
      unfinished.lastIndex = Math.max(from, at - 80);
      return unfinished.exec(text)?.index;
    };
  })(),
});

/**
 * An amount grouped in thousands by the spaces locales use for it (`1 234 567 890`, as
 * `Intl.NumberFormat` writes it in French, Russian or Polish; Swiss French adds `.50` for cents):
 * a number, not a phone or a card.
 * Cards are written in fours (or 4, 6 and 5), and phone numbers written with these spaces are
 * still found when they have a `+`, parentheses or a group of another length.
 */
const thousands = new RegExp(`^[1-9]\\d{0,2}(?:[${digitGroupSpace}]\\d{3})+(?:\\.\\d+)?$`);
/**
 * Nine digits in threes is also how Spain, Poland, Portugal, Czechia and Slovakia write mobile
 * numbers (`612 345 678`), and web pages put no-break spaces in them: read as a phone number,
 * though it may be an amount, since a number let out is worse than an amount hidden.
 */
const threeByThree = new RegExp(`^\\d{3}[${digitGroupSpace}]\\d{3}[${digitGroupSpace}]\\d{3}$`);
/** An amount, not a phone number: see `thousands` and `threeByThree`. */
const amountNotPhone = (m: string): boolean => thousands.test(m) && !threeByThree.test(m);

/** Code units of a stretch of digits: digits and the separators numbers are written with (a card's, a phone's). */
const STRETCH = new Uint8Array(0x10000);
for (const c of `0123456789 .()${digitGroupSpace}-`) STRETCH[c.charCodeAt(0)] = 1;
const NINE = 9;
let lastStretches: { readonly text: string; readonly list: Int32Array } | undefined;

/**
 * The stretches of `text` holding at least nine digits (no card or phone number has fewer), as
 * `[start, end)` pairs: each maximal run of digits and separators, from its first digit, when
 * that leaves nine characters or more (what `/\d[\d .()-]{8,}/g` finds). Kept like the view (see
 * `viewOf`) so that the card and phone detectors search them once. They are searched for as the
 * long runs of token characters are, with `firstSparseWindowIn`: by windows of nine read from their
 * end, so that most characters are never read.
 *
 * @example
 * [...digitStretches("call 415 555 0100 now")] // [5, 18]
 */
export const digitStretches = (text: string): Int32Array => {
  if (lastStretches?.text === text) return lastStretches.list;
  const found: number[] = [];
  const len = text.length;
  const u = codeUnits(text);
  for (let s = firstSparseWindowIn(u, len, 0, NINE, STRETCH); s !== -1; ) {
    // A stretch of nine or more starts at s.
    let b = s + NINE;
    while (b < len && STRETCH[u[b] as number] === 1) b++;
    let first = -1;
    let digits = 0;
    for (let k = s; k < b && digits < NINE; k++) {
      const c = u[k] as number;
      if (c >= 48 && c <= 57) {
        if (first === -1) first = k;
        digits++;
      }
    }
    if (digits >= NINE && b - first >= NINE) found.push(first, b);
    s = firstSparseWindowIn(u, len, b + 1, NINE, STRETCH);
  }
  if (lastStretches === undefined) queueMicrotask(() => (lastStretches = undefined));
  lastStretches = { text, list: Int32Array.from(found) };
  return lastStretches.list;
};

/**
 * `inner` run only on the stretches of digits where a card or a phone number can be, each with
 * the few characters around it its look-arounds read (a `+`, a parenthesis): what it finds is
 * what it would find in the whole text, at a fraction of the cost on text with few numbers.
 */
const inDigitStretches = (inner: Detector): Detector => ({
  kind: inner.kind,
  window: inner.window,
  minLength: 9,
  *find(text, from = 0) {
    const list = digitStretches(text);
    for (let k = 0; k < list.length; k += 2) {
      const lo = Math.max(0, (list[k] as number) - 4);
      const hi = Math.min(text.length, (list[k + 1] as number) + 3);
      if (hi <= from) continue;
      const piece = text.slice(lo, hi);
      for (const m of inner.find(piece, Math.max(0, from - lo))) if (lo + m.start >= from) yield { start: lo + m.start, end: lo + m.end };
    }
  },
});

/**
 * Payment card numbers: 13 to 19 digits, spaces or dashes allowed, Luhn-valid, starting as
 * issuers' numbers do (2 to 6: Mastercard, Amex, Diners, JCB, Visa, Discover, UnionPay), so that
 * a millisecond timestamp or a snowflake id that happens to pass Luhn is not one.
 *
 * @example
 * scan("4111 1111 1111 1111", [creditCard]).length // 1 (Luhn-valid)
 */
export const creditCard: Detector = readingVisible(
  inDigitStretches(
    builtinPattern("credit_card", new RegExp(`(?<![\\d-])[2-6](?:[ ${digitGroupSpace}-]?\\d){12,18}(?!\\d)`), {
      window: 40,
      validate: (m) => luhn(m) && !thousands.test(m),
    }),
  ),
);

/**
 * Phone numbers: 9 to 15 digits written as a phone number is (a leading `+`, parentheses or
 * separators). A bare run of digits is an id, not a phone; add a `pattern` if yours are.
 *
 * @example
 * scan("+1 415 555 0100", [phone]).length // 1
 */
// One digit per step, so a run of digits can be read only one way: groups of one to four digits
// (`\d{1,4}(?:[ .-]?\d{1,4})+`) could be split in thousands of ways, and crafted text took 60
// times as long to scan. A number is the whole run of digits and separators or nothing (the
// lookarounds), never a piece of a longer one; `validate` counts its digits.
const phoneSeparator = `[ .${digitGroupSpace}-]`;
const phonePunctuation = new RegExp(`[+()${phoneSeparator.slice(1)}`);
/**
 * Digits separated by dots only, in groups a phone number is not written in: a version
 * (`120.0.6099.109`), a decimal timestamp (`1700000000.12345`). Dotted phone numbers group their
 * digits by two to four after a country or area code of one to three (`415.555.0100`, `06.12.34.56.78`).
 */
const dottedNotPhone = (m: string): boolean => /^[\d.]+$/.test(m) && !/^\d{1,4}(?:\.\d{2,4})+$/.test(m);
/** A date (`2024-01-15 10`, `15.01.2024 10`) at the start: a timestamp in a log, not a phone number. */
const dated = /^(?:\d{4}[-.]\d{1,2}[-.]\d{1,2}|\d{1,2}[-.]\d{1,2}[-.]\d{4})(?!\d)/;
export const phone: Detector = readingVisible(
  inDigitStretches(
    builtinPattern(
      "phone",
      new RegExp(
        `(?<![\\w+]|\\d${phoneSeparator}|\\d:)(?:\\+\\d{1,3}${phoneSeparator}?)?(?:\\(\\d{1,4}\\)${phoneSeparator}?)?\\d(?:${phoneSeparator}?\\d){4,14}(?!\\w|${phoneSeparator}\\d)`,
      ),
      {
        window: 32,
        validate: (m) => {
          const n = digitCount(m);
          return (
            n >= 9 &&
            n <= 15 &&
            phonePunctuation.test(m) &&
            !/^\d{1,3}(?:\.\d{1,3}){3}$/.test(m) &&
            !amountNotPhone(m) &&
            !dated.test(m) &&
            !dottedNotPhone(m)
          );
        },
      },
    ),
  ),
);

const octet = "(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";
// The address alone, searched for through the text (the engine skips to digits), and what may not
// stand before it, tried only where an address is: a search with the look-behinds first cannot
// skip, and cost about a fifth more.
const ipv4Address = new RegExp(`${octet}(?:\\.${octet}){3}(?!\\w|\\.\\d)`, "g");
// A four-part version after its name (`Version=4.0.0.0`, `FileVersion 1.2.3.4`) is no address.
const ipv4Before = /(?<![\w.])(?<![Vv][Ee][Rr][Ss][Ii][Oo][Nn][ \t]?[=:(]?[ \t]?["']?)/y;
/**
 * IPv4 addresses (dotted quad, each octet 0 to 255), but for `0.0.0.0`, `127.x.x.x` and
 * `255.255.255.255`, which name no host.
 *
 * @example
 * scan("host 10.0.0.1", [ipv4])[0]?.kind // "ip_address"
 */
export const ipv4: Detector = readingVisible({
  kind: "ip_address",
  window: 16,
  minLength: 7,
  *find(text, from = 0) {
    // A fresh copy when the shared one is in use by a scan paused at a yield.
    const re = ipv4Idle ?? new RegExp(ipv4Address);
    ipv4Idle = undefined;
    try {
      re.lastIndex = from;
      for (let m = re.exec(text); m !== null; m = re.exec(text)) {
        ipv4Before.lastIndex = m.index;
        const a = m[0];
        // Addresses that name no host: the unspecified address, loopback and broadcast.
        if (ipv4Before.test(text) && a !== "0.0.0.0" && a !== "255.255.255.255" && !a.startsWith("127."))
          yield { start: m.index, end: m.index + a.length };
        // A rejected candidate consumes nothing: the next try starts one character on.
        else re.lastIndex = m.index + 1;
      }
    } finally {
      ipv4Idle = re;
    }
  },
});
let ipv4Idle: RegExp | undefined = ipv4Address;

/** An IPv6 address, full or compressed, with the characters around it its look-arounds read. */
const ipv6Pattern = /(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:(?:\d{1,3}\.){3}\d{1,3}|[0-9A-Fa-f]{1,4})?(?![\w:]|\.\d)/g;
const ipv6Valid = (m: string): boolean => isIPv6(m) && /\d/.test(m) && (m.match(/[0-9A-Fa-f]{1,4}/g)?.length ?? 0) >= 2;
const isHexOrColon = (code: number): boolean =>
  code === 58 || (code >= 48 && code <= 57) || (code >= 65 && code <= 70) || (code >= 97 && code <= 102);
const isIpv6Char = (code: number): boolean => isHexOrColon(code) || code === 46;

/**
 * IPv6 addresses, full or compressed (validated by `node:net`): at least two groups and a digit (so `a::b` is not one).
 * Only text around a colon between hex digits or colons is read.
 *
 * @example
 * scan("host 2001:db8::1", [ipv6]).length // 1
 */
export const ipv6: Detector = readingVisible({
  kind: "ip_address",
  window: 48,
  minLength: 3,
  *find(text, from = 0) {
    let done = -1;
    for (let at = text.indexOf(":"); at !== -1; at = text.indexOf(":", at + 1)) {
      if (at < done || !isHexOrColon(text.charCodeAt(at - 1)) || !isHexOrColon(text.charCodeAt(at + 1))) continue;
      // The stretch of hex digits, colons and dots around it: an address lies within it.
      let a = at;
      while (a > 0 && at - a < 64 && isIpv6Char(text.charCodeAt(a - 1))) a--;
      let b = at + 1;
      while (b < text.length && b - at < 64 && isIpv6Char(text.charCodeAt(b))) b++;
      done = b;
      // Without `::`, an address has all eight groups (seven colons): a time (`10:23:12.345`) has not.
      let colons = 0;
      let double = false;
      for (let i = a; i < b; i++) {
        if (text.charCodeAt(i) !== 58) continue;
        colons++;
        if (text.charCodeAt(i + 1) === 58) double = true;
      }
      if (!double && colons < 7) continue;
      const lo = Math.max(0, a - 1);
      const piece = text.slice(lo, Math.min(text.length, b + 2));
      ipv6Pattern.lastIndex = a - lo;
      for (let m = ipv6Pattern.exec(piece); m !== null && m.index < b - lo; m = ipv6Pattern.exec(piece)) {
        if (m[0] === "") {
          ipv6Pattern.lastIndex = m.index + 1;
          continue;
        }
        if (lo + m.index >= from && ipv6Valid(m[0])) yield { start: lo + m.index, end: lo + m.index + m[0].length };
        else ipv6Pattern.lastIndex = m.index + 1;
      }
    }
  },
});

/**
 * API keys and tokens of known formats (see `secret-rules.ts`, derived from secretlint's
 * recommended preset and gitleaks' rules): OpenAI and Anthropic (`sk-`), GitHub, GitLab, Slack
 * tokens and webhook URLs, Stripe, AWS access key ids, Google API keys, npm, SendGrid, Hugging
 * Face, Vault, JWTs and more, found whole however long they are.
 *
 * @example
 * scan("AKIAIOSFODNN7EXAMPLE", [apiKey])[0]?.kind // "api_key"
 */
export const apiKey: Detector = readingVisible(knownTokens);

/**
 * Values assigned to a name that says they are secret (`GITHUB_TOKEN=…`, `"client_secret": "…"`,
 * `password: …`), and credentials after `Authorization: Bearer`: kind `secret`.
 *
 * @example
 * scan("GITHUB_TOKEN=9f8e7d6c5b4a3210fedcba98", [secretAssignment])[0]?.kind // "secret"
 */
export const secretAssignment: Detector = readingVisible(namedSecret);

/**
 * PEM private keys, from `-----BEGIN … PRIVATE KEY-----` to its footer: kind `secret`.
 *
 * @example
 * scan("-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----", [privateKey])[0]?.kind // "secret"
 */
export const privateKey: Detector = readingVisible(pemPrivateKey);

/**
 * Passwords in URLs (`postgres://app:s3cret@db`), the password only: kind `secret`.
 *
 * @example
 * scan("https://bob:hunter22@example.com", [urlCredentials])[0]?.kind // "secret"
 */
export const urlCredentials: Detector = readingVisible(urlPassword);

/** Options of `highEntropy`: how long and how random a token must be. */
export interface HighEntropyOptions {
  /** Shortest token considered; default 24. */
  readonly minLength?: number;
  /** Least Shannon entropy in bits per character; default 3.5. */
  readonly threshold?: number;
}

/**
 * Unlabelled secrets: any long token mixing upper case, lower case and digits with high entropy,
 * whose character classes alternate as in random text (so `getUserById2024Handler` is not one),
 * however long. Not among the defaults: it also finds random file names, ids and hashes in
 * base64, which are everywhere in tool output (the defaults judge randomness only in an
 * assignment to a secret's name, see `secretAssignment`). Hex strings and plain words are left alone.
 *
 * @example
 * scan("token: Zm9vYmFyQmF6cXV4MTIzNDU2Nzg5MGFi", [highEntropy()]).length // 1
 */
export const highEntropy = (options: HighEntropyOptions = {}): Detector => {
  knownOptions("highEntropy", options, { minLength: true, threshold: true });
  const minLength = options.minLength ?? 24;
  const threshold = options.threshold ?? 3.5;
  if (!Number.isSafeInteger(minLength) || minLength < 8)
    throw new TypeError(`highEntropy: minLength must be an integer of at least 8, got ${String(minLength)}`);
  if (!(threshold > 0)) throw new TypeError(`highEntropy: threshold must be a positive number, got ${String(threshold)}`);
  return readingVisible(
    builtinPattern("secret", new RegExp(`(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{${minLength},}={0,2}(?![A-Za-z0-9+/=_-])`), {
      window: minLength + 8,
      // Judged whole: a long token is held until it ends (a random tail can make a dull start a secret).
      partial: new RegExp(`(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{${minLength},}={0,2}$`),
      validate: (m) => /[a-z]/.test(m) && /[A-Z]/.test(m) && /\d/.test(m) && mixing(m) >= 0.45 && entropy(m) >= threshold,
    }),
  );
};

/**
 * The default detectors, most specific first (on overlaps an earlier detector wins a tie):
 * known token formats, private keys, passwords in URLs, values assigned to a secret's name,
 * addresses, cards, IP addresses and phone numbers. `highEntropy()` is not among them.
 *
 * @example
 * scan("mail bob@example.com", defaultDetectors())[0]?.kind // "email"
 */
export const defaultDetectors = (): readonly Detector[] => [
  apiKey,
  privateKey,
  urlCredentials,
  secretAssignment,
  email,
  creditCard,
  ipv4,
  ipv6,
  phone,
];

/** Strings up to this length are sized up in one pass before any built-in detector runs on them. */
const SHORT = 256;

/** The bit of each built-in detector in what `cannotHold` returns. */
const bitOf = (d: Detector): number => {
  switch (d) {
    case apiKey:
      return 1;
    case secretAssignment:
      return 2;
    case privateKey:
      return 4;
    case urlCredentials:
      return 8;
    case email:
      return 16;
    case creditCard:
      return 32;
    case phone:
      return 64;
    case ipv4:
      return 128;
    case ipv6:
      return 256;
    default:
      return 0;
  }
};

/** What `cannotHold` notes of each ASCII code unit, as bits of `ASCII_CLASS`. */
const IN_RUN = 1;
/** Of a stretch where a card or phone number can be (see `STRETCH`). */
const IN_STRETCH = 2;
const DIGIT = 4;
/** After which the value or password of an assignment may be read (see `namedSecret`, `passwordAt`). */
const NAMING = 8;
/** One of which must stand right before an AWS secret key (see `awsSecret`). */
const AWS_SEPARATOR = 16;
/** What an at sign, written as such or encoded, starts with: `@ % \ &`. */
const AT = 32;
/** Read one by one: `:`, `.`, `B`, and the last letters of `passw`, `passphrase` and `pwd`. */
const OTHER = 64;
const ASCII_CLASS = new Uint8Array(128);
const mark = (chars: string, bit: number): void => {
  for (const c of chars) ASCII_CLASS[c.charCodeAt(0)] = (ASCII_CLASS[c.charCodeAt(0)] as number) | bit;
};
mark("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.+/=~", IN_RUN);
mark("0123456789 .()-", IN_STRETCH);
mark("0123456789", DIGIT);
mark("=:>,% \t", NAMING);
mark(" \t\n\v\f\r,;:=\"'|", AWS_SEPARATOR);
mark("@%\\&", AT);
mark(":.BwWpPdD", OTHER);

/**
 * For a short ASCII string, the built-in detectors that cannot match in it (as bits, see
 * `bitOf`), from one pass over it, without allocating. Each test is a condition every match of
 * the detector needs, read from its code: a token needs a run of `MIN_RUN` token characters; a
 * named value as many in a run after an operator or a blank, or after a `=` inside the run, an
 * AWS secret key 40 so after a separator, a password its name (`passw`, `passphrase`, `pwd`) and an operator or a
 * blank; a private key a `B` (of `BEGIN`); a password in a URL an at sign and a colon; an address
 * an at sign (or what an encoded one starts with) and, after it, a dot and a letter; a card 13
 * digits and a phone 9 in one stretch of digits and separators; an IPv4 address three dots
 * between digits; an IPv6 address two colons and a digit. A JSON object is mostly short strings
 * (`"version": "1.2.3"`), and running every detector on each costs far more than this. Text with
 * other characters gets 0 (an invisible character may join two runs in what they read).
 */
const cannotHold = (text: string): number => {
  let digits = 0;
  let run = 0;
  let longest = 0;
  // Whether an operator or a blank (a separator) came before this run, and how many of its
  // characters follow its first `=`: a named value (an AWS secret key) starts after one of them.
  let namingBefore = false;
  let separatorBefore = false;
  let afterAssign = -1;
  let namedValue = false;
  let awsValue = false;
  let seen = 0;
  let dotLetterAfterAt = false;
  let colons = 0;
  let b = false;
  let stretchDigits = 0;
  let mostStretchDigits = 0;
  let dotsBetweenDigits = 0;
  // `ssw`, `ssp` (of `password`, `passphrase`) or `pwd`, in any case: a password's name.
  let pass = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128) return 0;
    const f = ASCII_CLASS[c] as number;
    if ((f & IN_RUN) !== 0) {
      // A value starts a run, after its name's operator or blank, or follows a `=` in a run.
      if (run === 0) {
        namingBefore = (seen & NAMING) !== 0;
        separatorBefore = (seen & AWS_SEPARATOR) !== 0;
        afterAssign = -1;
      }
      if (++run > longest) longest = run;
      if (afterAssign >= 0) afterAssign++;
      else if (c === 61) afterAssign = 0;
      if ((run >= MIN_RUN && namingBefore) || afterAssign >= MIN_RUN) namedValue = true;
      if ((run >= 40 && separatorBefore) || afterAssign >= 40) awsValue = true;
    } else run = 0;
    seen |= f;
    if ((f & DIGIT) !== 0) {
      digits++;
      if (++stretchDigits > mostStretchDigits) mostStretchDigits = stretchDigits;
    } else if ((f & IN_STRETCH) === 0) stretchDigits = 0;
    if ((f & OTHER) === 0) continue;
    if (c === 58) colons++;
    else if (c === 46) {
      const next = text.charCodeAt(i + 1);
      if ((seen & AT) !== 0 && (next | 32) >= 97 && (next | 32) <= 122) dotLetterAfterAt = true;
      const before = text.charCodeAt(i - 1);
      if (before >= 48 && before <= 57 && next >= 48 && next <= 57) dotsBetweenDigits++;
    } else if (c === 66) b = true;
    else if (!pass && i >= 2) {
      const lower = c | 32;
      const one = text.charCodeAt(i - 1) | 32;
      const two = text.charCodeAt(i - 2) | 32;
      pass = lower === 100 ? one === 119 && two === 112 : one === 115 && two === 115;
    }
  }
  const at = (seen & AT) !== 0;
  const naming = (seen & NAMING) !== 0;
  let cannot = 0;
  if (longest < MIN_RUN) cannot |= 1;
  if (!namedValue && !awsValue && !(pass && naming)) cannot |= 2;
  if (!b) cannot |= 4;
  if (!at || colons === 0) cannot |= 8;
  if (!dotLetterAfterAt) cannot |= 16;
  if (digits < 13 || mostStretchDigits < 13) cannot |= 32;
  if (mostStretchDigits < NINE) cannot |= 64;
  if (dotsBetweenDigits < 3) cannot |= 128;
  if (colons < 2 || digits === 0) cannot |= 256;
  return cannot;
};

/** The bits (see `bitOf`) of a list of detectors, each and together (all bits when one is not built in). */
interface Bits {
  readonly each: Int32Array;
  readonly any: number;
}
/** The last list asked about, as it was then: a caller may change its own array between scans. */
let lastList: Detector[] = [];
let lastBits: Bits = { each: new Int32Array(0), any: 0 };
/** The bits of `detectors`, kept for the last list: a redactor scans every string with the same one. */
const bitsOf = (detectors: readonly Detector[]): Bits => {
  if (detectors.length === lastList.length) {
    let same = true;
    for (let i = 0; i < detectors.length && same; i++) same = detectors[i] === lastList[i];
    if (same) return lastBits;
  }
  const each = new Int32Array(detectors.length);
  let any = 0;
  detectors.forEach((d, i) => {
    const bit = bitOf(d);
    each[i] = bit;
    any |= bit === 0 ? -1 : bit;
  });
  lastList = [...detectors];
  lastBits = { each, any };
  return lastBits;
};

/**
 * Every sensitive span in `text` from `from` on (default 0; earlier text is look-behind context),
 * sorted and without overlaps. Overlapping matches are merged into one span, so no part of
 * either is left out: its kind is the leftmost match's, then the longest's, then that of the
 * detector listed first, and `also` lists the kinds merged into it.
 *
 * @example
 * scan("call +1 415 555 0100 or mail a@b.io", defaultDetectors()).map((d) => d.kind) // ["phone", "email"]
 */
export const scan = (text: string, detectors: readonly Detector[], from = 0): Detection[] => {
  let found: (Detection & { readonly rank: number })[] | undefined;
  const cannot = text.length <= SHORT ? cannotHold(text) : 0;
  const bits = bitsOf(detectors);
  // Every detector built in and none able to match: most keys and values of a structured result.
  if (cannot !== 0 && (bits.any & ~cannot) === 0) return [];
  for (let rank = 0; rank < detectors.length; rank++) {
    const d = detectors[rank] as Detector;
    if (d.minLength !== undefined && text.length < d.minLength) continue;
    if ((cannot & (bits.each[rank] as number)) !== 0) continue;
    for (const m of d.find(text, from)) if (m.start >= from) (found ??= []).push({ kind: d.kind, start: m.start, end: m.end, rank });
  }
  if (found === undefined) return [];
  found.sort((a, b) => a.start - b.start || b.end - a.end || a.rank - b.rank);
  const out: Detection[] = [];
  let last: { kind: string; start: number; end: number; also?: string[] } | undefined;
  for (const f of found) {
    if (last !== undefined && f.start < last.end) {
      last.end = Math.max(last.end, f.end);
      if (f.kind !== last.kind && !(last.also ??= []).includes(f.kind)) last.also.push(f.kind);
      continue;
    }
    last = { kind: f.kind, start: f.start, end: f.end };
    out.push(last);
  }
  return out;
};

/**
 * The earliest unfinished match at the end of `text`, at or after `from` (see `Detector.partial`),
 * with the kind of the detector that found it (the one listed first on a tie).
 *
 * @example
 * unfinishedMatch("token: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIx", defaultDetectors()) // { kind: "api_key", start: 7 }
 */
export const unfinishedMatch = (
  text: string,
  detectors: readonly Detector[],
  from = 0,
): { readonly kind: string; readonly start: number } | undefined => {
  let found: { kind: string; start: number } | undefined;
  for (const d of detectors) {
    const at = d.partial?.(text, from);
    if (at !== undefined && (found === undefined || at < found.start)) found = { kind: d.kind, start: at };
  }
  return found;
};

/**
 * Where the earliest unfinished match at the end of `text` starts, at or after `from` (see `Detector.partial`), if any.
 *
 * @example
 * partialStart("token: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIx", defaultDetectors()) // 7
 */
export const partialStart = (text: string, detectors: readonly Detector[], from = 0): number | undefined =>
  unfinishedMatch(text, detectors, from)?.start;

/**
 * Every kind a detection stands for: its own, and those merged into its span.
 *
 * @example
 * kindsOf({ kind: "secret", start: 0, end: 46, also: ["email"] }) // ["secret", "email"]
 */
export const kindsOf = (d: Detection): readonly string[] => (d.also === undefined ? [d.kind] : [d.kind, ...d.also]);

/**
 * The hold-back a stream needs for these detectors: the largest window.
 *
 * @example
 * windowOf(defaultDetectors()) // 132
 */
export const windowOf = (detectors: readonly Detector[]): number => detectors.reduce((w, d) => Math.max(w, d.window), 0);

/**
 * The built-in detectors and the custom-pattern builder, under one name.
 *
 * @example
 * const detectors = [...Detectors.defaults(), Detectors.pattern("ticket", /TCK-\d{6}/, { window: 10 })]
 */
export const Detectors = {
  email,
  creditCard,
  phone,
  ipv4,
  ipv6,
  apiKey,
  secretAssignment,
  privateKey,
  urlCredentials,
  highEntropy,
  pattern,
  /** The detectors `redaction()` and `createRedactor()` use by default. */
  defaults: defaultDetectors,
} as const;
