/**
 * Text that comes back from external hooks (reasons, context, messages) ends up in a model's
 * context, a terminal and logs. Terminal escape sequences, other control characters and
 * bidirectional overrides are removed here, once, before any of that (D9, I3).
 */

// CSI (`ESC [ ... final`), OSC (`ESC ] ... BEL|ST`), DCS/SOS/PM/APC strings, two-byte escapes, and their C1 forms.
// A string's body stops at the next BEL, ESC or ST, so an unterminated one ends there (or at the
// end of the text) instead of being rescanned to the end from every opener: cleaning stays
// linear in the text (a lazy `[\s\S]*?` body made 256 KiB of `ESC ]` take over a minute).
const escapes =
  /\u001b\[[0-?]*[ -/]*[@-~]|\u009b[0-?]*[ -/]*[@-~]|(?:\u001b[\]PX^_]|[\u009d\u0090\u0098\u009e\u009f])[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|\u001b[\s\S]?/g;
// Remaining C0/C1 controls except tab and newline, and the bidi embedding/override/isolate marks.
const controls = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Remove terminal escapes, control characters (tab and newline stay) and bidi overrides.
 *
 * @example
 * stripTerminal("\u001b[31mdenied\u001b[0m\u001b]52;c;ZXZpbA==\u0007") // "denied"
 */
export const stripTerminal = (text: string): string => text.replace(/\r\n?/g, "\n").replace(escapes, "").replace(controls, "");

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
  // Escapes shrink as they are removed, so more than `limit` is cleaned; not all of a 1 MiB stdout.
  const cap = limit * 4 + 1024;
  const clean = stripTerminal(text.length > cap ? text.slice(0, cap) : text).trim();
  const dropped = Math.max(clean.length - limit, 0) + Math.max(text.length - cap, 0);
  return dropped === 0 ? clean : `${clean.slice(0, limit)}… [${dropped} characters truncated]`;
};
