/**
 * Terminal output for the demo: colours when stdout is a terminal (and NO_COLOR is unset),
 * plain text otherwise, so the output reads the same in a log or a test.
 */
const on = process.stdout.isTTY === true && process.env.NO_COLOR === undefined;
const paint =
  (code: number) =>
  (text: string): string =>
    on ? `\x1b[${code}m${text}\x1b[0m` : text;

/** Colour helpers. */
export const c = { dim: paint(2), bold: paint(1), red: paint(31), green: paint(32), yellow: paint(33), blue: paint(34), cyan: paint(36) };

/** True while a streamed line is unfinished, so a line printed meanwhile starts on a line of its own. */
let midLine = false;

/** Print a line. */
export const say = (line = ""): void => {
  process.stdout.write(`${midLine ? "\n" : ""}${line}\n`);
  midLine = false;
};

/** Write without a newline (streamed text). */
export const write = (text: string): void => {
  if (text === "") return;
  process.stdout.write(text);
  midLine = !text.endsWith("\n");
};

/** End a streamed line, if one is unfinished. */
export const endLine = (): void => void (midLine && write("\n"));

/** A section heading. */
export const heading = (title: string): void => say(`\n${c.bold(c.blue(`== ${title} ==`))}`);

/** A value on one line, shortened. */
export const brief = (value: unknown, max = 70): string => {
  const text = (typeof value === "string" ? value : (JSON.stringify(value) ?? String(value))).replace(/\s+/g, " ").trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
};
