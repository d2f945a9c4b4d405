/**
 * The built-in detectors read text as a reader sees it. Invisible characters (zero-width spaces
 * and joiners, word joiners, byte order marks, soft hyphens, bidi controls: Unicode's
 * default-ignorable code points) are skipped, and no-break and other Unicode spaces read as a
 * space. Otherwise one zero-width space, which no reader sees, hides a key from every pattern, and
 * a card or phone number written with no-break spaces (as word processors and many locales write
 * them) is not one. The spaces locales group digits with read as a no-break space instead
 * (`digitGroupSpace`), so that the number detectors can tell `1 234 567 890`, an amount as
 * `Intl.NumberFormat` writes it in French, Russian or Polish, from a phone number. A match found
 * in that view covers the original text from its first visible character to its last, invisible
 * characters between them included.
 */
import type { Detector } from "./detectors.ts";
import { nextWide } from "./char-windows.ts";

/**
 * What the no-break, thin and narrow no-break spaces (the spaces locales group digits with) read
 * as. One character, and a Latin-1 one, so that a view stays a one-byte string, which the regexes
 * scan faster.
 */
export const digitGroupSpace = "\u00a0";

/** What makes a text need a view: most text has none of these, and is scanned as it is. */
const unusualSource = "[\\p{Default_Ignorable_Code_Point}\\u1680\\u2000-\\u200a\\u202f\\u205f\\u3000]";
const unusualHere = new RegExp(unusualSource, "uy");
const unusualFrom = new RegExp(unusualSource, "gu");
/**
 * A code unit beyond Latin-1. Every code point `unusualSource` matches but the soft hyphen (U+00AD)
 * is one: on text the engine holds as Latin-1 (most tool output) this search fails without
 * reading it, and on other text it costs one comparison a character.
 */
const wide = /[\u0100-\uffff]/g;

/**
 * Whether a text needs a view at all. The soft hyphen is looked for by a string search; then each
 * code unit beyond Latin-1 is tested alone, since text that has any (a `—`, an `é` in a two-byte
 * string) usually has few: the first is found by a regular expression (which fails at once on a
 * text held as Latin-1), the next ones by reading the text's code units sixteen words at a time
 * (see `nextWide`). Text with many of them (a page in Chinese) is searched with the class from
 * the first few on.
 */
const hasUnusual = (text: string): boolean => {
  if (text.indexOf("\u00ad") !== -1) return true;
  wide.lastIndex = 0;
  const first = wide.exec(text);
  if (first === null) return false;
  let at = first.index;
  for (let tries = 0; tries < 16; tries++) {
    unusualHere.lastIndex = at;
    if (unusualHere.test(text)) return true;
    at = nextWide(text, at + 1);
    if (at >= text.length) return false;
  }
  unusualFrom.lastIndex = at;
  return unusualFrom.test(text);
};
/** An astral default-ignorable code point (tag characters, among others), at the regex's `lastIndex`. */
const astralInvisible = /\p{Default_Ignorable_Code_Point}/uy;

/** What the table says of a code unit: keep it (0, the default), skip it, read it as a space or as `digitGroupSpace`. */
const SKIP = 1;
const SPACE = 2;
const GROUP = 3;
let bmp: Uint8Array | undefined;
/** What to do with each BMP code unit, read from the engine's Unicode tables once, when first needed. */
const table = (): Uint8Array => {
  if (bmp !== undefined) return bmp;
  bmp = new Uint8Array(0x10000);
  let all = "";
  for (let c = 0; c < 0x10000; c += 4096) all += String.fromCharCode(...Array.from({ length: 4096 }, (_, i) => c + i));
  // Surrogates match neither (the one pair they form here, U+10FC00, is a private-use character).
  for (const m of all.matchAll(/\p{Default_Ignorable_Code_Point}/gu)) bmp[m.index] = SKIP;
  for (const m of all.matchAll(/(?! )\p{Zs}/gu)) bmp[m.index] = SPACE;
  bmp[0xa0] = 0; // digitGroupSpace itself
  bmp[0x2009] = GROUP;
  bmp[0x202f] = GROUP;
  return bmp;
};

/** What a detector reads, and where each of its code units is in the original text. */
interface View {
  readonly text: string;
  /** `at[i]` is the original index of `text[i]`; `at[text.length]` is the original length. */
  readonly at: Int32Array;
}

// Two variables, not an object: a structured result asks about thousands of short strings.
let lastText: string | undefined;
let lastView: View | undefined;
/**
 * The view of `text`. The last one is kept until the current task's microtasks run: a scan asks
 * every detector about the same text (and a stream asks for unfinished matches right after), and
 * building the view once a scan rather than once a detector keeps a megabyte under a second.
 */
const viewOf = (text: string): View | undefined => {
  if (lastText === text) return lastView;
  const view = build(text);
  if (lastText === undefined) queueMicrotask(forget);
  lastText = text;
  lastView = view;
  return view;
};
const forget = (): void => {
  lastText = undefined;
  lastView = undefined;
};

// One pass over code units: a regex replace costs ten times as much on text full of invisible characters.
const build = (text: string): View | undefined => {
  if (!hasUnusual(text)) return undefined;
  const what = table();
  const at = new Int32Array(text.length + 1);
  const units = new Uint16Array(text.length);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const does = what[c] as number;
    if (does === SKIP) continue;
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      astralInvisible.lastIndex = i;
      if (astralInvisible.test(text)) {
        i++;
        continue;
      }
    }
    at[n] = i;
    units[n++] = does === SPACE ? 0x20 : does === GROUP ? 0xa0 : c;
  }
  at[n] = text.length;
  let out = "";
  for (let i = 0; i < n; i += 8192) out += String.fromCharCode(...units.subarray(i, Math.min(n, i + 8192)));
  return { text: out, at: at.subarray(0, n + 1) };
};

/** The first index of the view at or after `from` in the original text. */
const viewIndex = (view: View, from: number): number => {
  let lo = 0;
  let hi = view.text.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((view.at[mid] as number) < from) lo = mid + 1;
    else hi = mid;
  }
  return lo;
};

/**
 * `detector` reading the visible view of a text, its matches and unfinished matches given in the
 * original text's indices. Its `window` counts visible characters: a text that ends with the
 * start of a match padded with invisible characters (longer than the window, then) reports an
 * unfinished match from where its last `window` visible characters start, so that a stream holds
 * all of them. A stream cannot hold more than its `maxHold`: text ending in a longer run of
 * invisible characters is let out redacted, as a match that outgrew it is.
 */
export const readingVisible = (detector: Detector): Detector => {
  const window = detector.window;
  return {
    kind: detector.kind,
    window,
    ...(detector.minLength === undefined ? {} : { minLength: detector.minLength }),
    *find(text, from = 0) {
      const view = viewOf(text);
      if (view === undefined) return yield* detector.find(text, from);
      const at = view.at;
      for (const m of detector.find(view.text, viewIndex(view, from))) {
        if (m.end <= m.start) continue;
        yield { start: at[m.start] as number, end: (at[m.end - 1] as number) + 1 };
      }
    },
    partial(text, from = 0) {
      const view = viewOf(text);
      if (view === undefined) return detector.partial?.(text, from);
      const first = viewIndex(view, from);
      const unfinished = detector.partial?.(view.text, first);
      let start = unfinished === undefined ? undefined : (view.at[unfinished] as number);
      // Hold the last `window` visible characters with the invisible ones between and after them,
      // from just after the visible character before them: a look-behind then sees that one.
      const k = view.text.length - window;
      const hold = k <= first ? from : (view.at[k - 1] as number) + 1;
      if (text.length - hold > window && (start === undefined || hold < start)) start = hold;
      return start;
    },
  };
};
