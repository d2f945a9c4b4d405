/**
 * Text that comes back from external hooks (reasons, context, messages) ends up in a model's
 * context, a terminal and logs. Terminal escape sequences, other control characters and
 * bidirectional overrides are removed here, once, before any of that (D9, I3).
 */

// CSI (`ESC [ ... final`), OSC (`ESC ] ... BEL|ST`), DCS/SOS/PM/APC strings, two-byte escapes, and their C1 forms.
// A string runs from its opener to the first BEL, ST or `ESC \`, other escapes inside it included.
// An opener with no terminator after it is not a string: only the opener goes (by `ESC x` or as
// a control character) and the text after it stays, since a stray C1 character is common mojibake.
const csi = String.raw`\u001b\[[0-?]*[ -/]*[@-~]|\u009b[0-?]*[ -/]*[@-~]`;
const string = String.raw`(?:\u001b[\]PX^_]|[\u009d\u0090\u0098\u009e\u009f])[^\u0007\u001b\u009c]*(?:\u001b(?!\\)[^\u0007\u001b\u009c]*)*(?:\u0007|\u001b\\|\u009c)`;
const twoByte = String.raw`\u001b[\s\S]?`;
const escapes = new RegExp(`${csi}|${string}|${twoByte}`, "g");
// The same without strings, for the text after the last terminator, where no string can end.
const escapesUnterminated = new RegExp(`${csi}|${twoByte}`, "g");
// Remaining C0/C1 controls except tab and newline, and the bidi embedding/override/isolate marks.
const controls = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Where the text's last string terminator ends (0 without one). */
const afterLastTerminator = (text: string): number => {
  const st = text.lastIndexOf("\u001b\\");
  return Math.max(text.lastIndexOf("\u0007") + 1, text.lastIndexOf("\u009c") + 1, st < 0 ? 0 : st + 2);
};

/**
 * Remove terminal escapes, control characters (tab and newline stay) and bidi overrides.
 *
 * Linear in the text: a string pattern fails, and so rescans to the end, only from an opener with
 * no terminator after it, so it is tried only before the last terminator (a lazy scan from every
 * unterminated opener made 256 KiB of `ESC ]` take over a minute).
 *
 * @example
 * stripTerminal("\u001b[31mdenied\u001b[0m\u001b]52;c;ZXZpbA==\u0007") // "denied"
 */
export const stripTerminal = (text: string): string => {
  const folded = text.replace(/\r\n?/g, "\n");
  const end = afterLastTerminator(folded);
  // No match crosses `end`: one that reaches the terminator just before it ends there.
  const clean = folded.slice(0, end).replace(escapes, "") + folded.slice(end).replace(escapesUnterminated, "");
  return clean.replace(controls, "");
};

/**
 * Claude Code caps hook output strings at 10 000 characters; so do we.
 *
 * @example
 * cleanText(text, TEXT_LIMIT)
 */
export const TEXT_LIMIT = 10_000;

/**
 * Clean and cap a piece of hook text; a cut is marked so nobody mistakes it for the whole.
 *
 * @example
 * cleanText("x".repeat(20_000)).endsWith("[10000 characters truncated]") // true
 */
export const cleanText = (text: string, limit = TEXT_LIMIT): string => {
  // Cleaned whole, then cut, so the limit and the mark count visible characters: escapes can hide
  // any amount of text. Cleaning is linear, and hook output is capped where it is read (stdout and
  // HTTP bodies at 1 MiB by default: about 30 ms).
  const clean = stripTerminal(text).trim();
  return clean.length <= limit ? clean : `${clean.slice(0, limit)}… [${clean.length - limit} characters truncated]`;
};
