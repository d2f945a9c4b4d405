/** Small helpers shared by the benchmark scripts. */

/** `--name value` and `--flag` arguments. */
export const parseArgs = (argv: readonly string[]): Map<string, string> => {
  const args = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (!arg.startsWith("--")) continue;
    const eq = arg.indexOf("=");
    if (eq > 0) args.set(arg.slice(2, eq), arg.slice(eq + 1));
    else if (i + 1 < argv.length && !(argv[i + 1] as string).startsWith("--")) args.set(arg.slice(2), argv[++i] as string);
    else args.set(arg.slice(2), "true");
  }
  return args;
};

export const median = (values: readonly number[]): number => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

/** A fixed-width text table for the console. */
export const textTable = (header: readonly string[], rows: readonly (readonly string[])[]): string => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]): string =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
};

export const fmt = (value: number | undefined, digits = 0): string => {
  if (value === undefined || !Number.isFinite(value)) return "n/a";
  const text = value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return /^-0(\.0*)?$/.test(text) ? text.slice(1) : text; // a tiny negative rounds to "-0.0": print "0.0"
};

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
