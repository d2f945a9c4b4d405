/**
 * Text that comes back from external hooks (reasons, context, messages) ends up in a model's
 * context, a terminal and logs. Terminal escape sequences, other control characters and
 * bidirectional overrides are removed here, once, before any of that (D9, I3).
 */

// CSI (`ESC [ ... final`), OSC (`ESC ] ... BEL|ST`), DCS/SOS/PM/APC strings, two-byte escapes, and their C1 forms.
const escapes =
  /\u001b\[[0-?]*[ -/]*[@-~]|\u009b[0-?]*[ -/]*[@-~]|\u001b[\]PX^_][\s\S]*?(?:\u0007|\u001b\\|\u009c)|[\u009d\u0090\u0098\u009e\u009f][\s\S]*?(?:\u0007|\u001b\\|\u009c)|\u001b[\s\S]?/g;
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
  const clean = stripTerminal(text).trim();
  return clean.length <= limit ? clean : `${clean.slice(0, limit)}… [${clean.length - limit} characters truncated]`;
};
