/**
 * The names a path in a tool call goes by, as absolute POSIX-style paths, before any rule sees it:
 * `.` and `..` resolved against the call's working directory, repeated separators collapsed,
 * aliases of the file system root in `/proc` mapped, `~` expanded, and (when asked) symbolic links
 * of the longest existing prefix resolved as the kernel resolves them.
 *
 * A deny rule matches when ANY form matches (the path as given and as resolved); an allow rule holds
 * only when every form the kernel would open (the resolved one when links are resolved, else the
 * given one) matches. A path whose target cannot be known from its text (one that goes through an
 * open file descriptor, a process's working directory, another process's root) is opaque: it
 * matches every deny rule and no allow rule.
 */
import { lstatSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import { win32 } from "node:path";
import { fileURLToPath } from "node:url";

/** Where a tool call's paths are read from, and how. */
export interface PathContext {
  /** The call's working directory, absolute, as the platform writes it. */
  readonly cwd: string;
  /** The home directory, for `~`. */
  readonly home: string;
  /** Also give the form with symbolic links resolved. */
  readonly symlinks: boolean;
  /** Read paths as Windows does: drive letters, `\` separators, `\\?\` prefixes. */
  readonly windows: boolean;
  /** Fold forms to lower case (the rules are folded the same way). */
  readonly caseInsensitive: boolean;
}

/** The forms of one path, and whether its target cannot be known. */
export interface PathForms {
  /** Absolute, normalised POSIX-style paths (folded when the context is case-insensitive), without duplicates: what a deny reads. */
  readonly forms: readonly string[];
  /** Each form split on `/` (`"/"` gives `[""]`). */
  readonly parts: readonly (readonly string[])[];
  /** The forms the kernel would open (resolved when links are resolved), split on `/`: what an allow reads. */
  readonly opened: readonly (readonly string[])[];
  readonly opaque: boolean;
}

/**
 * A platform path in the POSIX form rules are matched in: on Windows, `\\` read as `/`, the
 * `\\?\` and `\\.\` prefixes dropped and a drive `C:` written `/c`, as Claude Code writes it.
 * Names keep their bytes: `café` in NFC and in NFD are two names to most file systems.
 *
 * @example
 * toPosixPath("C:\\proj\\src\\a.ts", true) // "/c/proj/src/a.ts"
 * toPosixPath("src\\a.ts", true) // "src/a.ts"
 * toPosixPath("a\\b", false) // "a\\b": one name on POSIX
 */
export const toPosixPath = (path: string, windows: boolean): string => {
  if (!windows) return path;
  let p = path.replaceAll("\\", "/");
  if (p.startsWith("//?/") || p.startsWith("//./")) p = p.slice(4);
  if (p.startsWith("UNC/")) p = `//${p.slice(4)}`;
  const drive = /^([A-Za-z]):(?:\/|$)/.exec(p);
  return drive === null ? p : `/${drive[1]!.toLowerCase()}${p.slice(2)}`;
};

/**
 * Every form of `raw` in `context`. Pure apart from the file system reads of `realpath` (one call
 * for a path that exists, one more per missing trailing segment).
 *
 * @example
 * pathForms("../../etc/passwd", { cwd: "/home/u", home: "/home/u", symlinks: false, windows: false, caseInsensitive: false }).forms // ["/etc/passwd"]
 * pathForms("/proc/self/root/etc/passwd", { cwd: "/", home: "/root", symlinks: false, windows: false, caseInsensitive: false }).forms // ["/etc/passwd"]
 */
export const pathForms = (raw: string, context: PathContext): PathForms => {
  const found = new Set<string>();
  const opens = new Set<string>();
  // No file name holds a NUL: a tool written in C stops reading the path there, one in Node refuses it.
  let opaque = raw.includes("\u0000");
  const add = (variant: string, opensIt = true): void => {
    const lexical = walk(context, variant);
    opaque ||= lexical.opaque;
    found.add(lexical.path);
    if (!context.symlinks || lexical.opaque) {
      if (opensIt) opens.add(lexical.path);
      return;
    }
    const resolved = resolveLinks(context, variant);
    opaque ||= resolved.opaque;
    found.add(resolved.path);
    if (opensIt) opens.add(resolved.path);
    // A tool that normalises the path before opening it (`path.resolve`) drops `missing/..` and
    // then follows the links the kernel would not have reached: `src/missing/../link/x`.
    if (!dotDot.test(variant)) return;
    const normalised = resolveLinks(context, lexical.path);
    opaque ||= normalised.opaque;
    found.add(normalised.path);
    if (opensIt) opens.add(normalised.path);
  };
  add(raw);
  // `\\x` on Windows starts at the root of the working directory's drive; a tool (or a rule) may mean the `/x` written so.
  if (context.windows && /^[\\/](?![\\/])/.test(raw)) {
    const drive = /^([A-Za-z]):/.exec(context.cwd)?.[1];
    if (drive !== undefined) add(`${drive}:${raw}`);
  }
  // A tool may take a `file:` URL (decoding it, `%2e%2e` included); one that does not reads a
  // relative path named so. A URL that names no local path (another host, an encoded `/`) is opaque.
  if (/^file:/i.test(raw)) {
    try {
      add(fileURLToPath(raw, { windows: context.windows }));
    } catch {
      opaque = true;
    }
  }
  // A tool may trim the path it is given: a deny also reads it trimmed.
  const trimmed = raw.trim();
  if (trimmed !== raw && trimmed !== "") add(trimmed, false);
  // On POSIX a backslash is part of a name, as the kernel reads it; a deny also reads it as a
  // separator, as a tool written for Windows would.
  if (!context.windows && raw.includes("\\")) add(raw.replaceAll("\\", "/"), false);
  // A tool that does not expand `~` (or `$HOME`) reads a directory of that name; one that does reads the home directory.
  for (const expanded of homeForms(raw, context)) add(expanded);
  // A deny reads names in NFC (as rules are compared) and as given; links were resolved on the name
  // as given (an NFD name is another file than its NFC twin on Linux).
  const fold = (path: string): string => (context.caseInsensitive ? path.toLowerCase() : path);
  const forms = [...new Set([...found].flatMap((f) => [fold(f), fold(f.normalize("NFC"))]))];
  // An allow reads the bytes the kernel opens, except where the file system ignores the normalisation (macOS, Windows).
  const opened = [...new Set([...opens].map((f) => fold(context.caseInsensitive ? f.normalize("NFC") : f)))];
  return { forms, parts: forms.map(partsOf), opened: opened.map(partsOf), opaque };
};

/**
 * The paths `raw` stands for when a tool expands the home directory in it: `~`, `~/…`, `$HOME/…`,
 * `${HOME}/…`, and `~user/…` (that user's home, as a shell or Python's `expanduser` reads it).
 */
const homeForms = (raw: string, context: PathContext): string[] => {
  const lead = (context.windows ? homeLeadWindows : homeLead).exec(raw);
  if (lead === null) return [];
  const rest = raw.slice(lead[0].length + 1);
  const user = lead[1];
  const home = user === undefined ? context.home : homeOfUser(user);
  if (home === undefined) return [];
  return [rest === "" ? home : `${home}/${rest}`];
};

const homeLead = /^(?:~([A-Za-z0-9_.][A-Za-z0-9_.-]*\$?)?|\$HOME|\$\{HOME\})(?=\/|$)/;
const homeLeadWindows = /^(?:~([A-Za-z0-9_.][A-Za-z0-9_.-]*\$?)?|\$HOME|\$\{HOME\}|%USERPROFILE%)(?=[\\/]|$)/i;

let passwd: Map<string, string> | undefined;

/** A user's home directory from `/etc/passwd`, or `undefined` when the user is not listed there. */
const homeOfUser = (user: string): string | undefined => {
  if (passwd === undefined) {
    passwd = new Map();
    try {
      for (const line of readFileSync("/etc/passwd", "utf8").split("\n")) {
        const fields = line.split(":");
        if (fields.length >= 7 && fields[5]!.startsWith("/")) passwd.set(fields[0]!, fields[5]!);
      }
    } catch {
      // no /etc/passwd (Windows, a container without one): no user's home is known
    }
  }
  return passwd.get(user);
};

/**
 * A normalised absolute path split on `/`: `"/"` gives `[""]`, `"/a/b"` gives `["", "a", "b"]`.
 *
 * @example
 * partsOf("/etc/passwd") // ["", "etc", "passwd"]
 */
export const partsOf = (path: string): string[] => (path === "/" ? [""] : path.split("/"));

interface Walked {
  readonly path: string;
  readonly opaque: boolean;
}

const dotDot = /(?:^|[\\/])\.\.(?:[\\/]|$)/;

/** `path` made absolute against the context's working directory, in POSIX form, not normalised. */
const absolute = (context: PathContext, path: string): string => {
  // `C:x` is relative to drive C's own working directory: the call's when it is on C (else opaque, see `walk`).
  const drive = context.windows ? /^([A-Za-z]):(?![\\/])/.exec(path) : null;
  const p = toPosixPath(drive === null ? path : path.slice(2), context.windows);
  if (p.startsWith("/")) return p;
  return `${toPosixPath(context.cwd, context.windows)}/${p}`;
};

/** A drive-relative Windows path (`D:x`) on another drive than the working directory's: which directory it starts from is not known. */
const otherDrive = (context: PathContext, path: string): boolean => {
  const drive = /^([A-Za-z]):(?![\\/])/.exec(path);
  return drive !== null && drive[1]!.toLowerCase() !== /^([A-Za-z]):/.exec(context.cwd)?.[1]?.toLowerCase();
};

/**
 * A segment as Windows opens it (except in `\\?\` paths): an alternate data stream (`.env::$DATA`,
 * `.env:x`) is part of its file, and trailing dots and spaces are dropped (`.env.` is `.env`).
 */
const windowsSegment = (segment: string): string => {
  if (segment === "." || segment === "..") return segment;
  const stream = segment.indexOf(":");
  const name = (stream < 0 ? segment : segment.slice(0, stream)).replace(/[. ]+$/, "");
  return name === "" ? "." : name;
};

/**
 * Resolve `.`, `..`, repeated separators and the `/proc` and `/dev` aliases, segment by segment, as
 * the kernel would without links: from the root for an absolute path, from the working directory
 * for a relative one, or from `start` (segments of an absolute directory) when given.
 */
const walk = (context: PathContext, path: string, start?: readonly string[]): Walked => {
  const stack: string[] = start === undefined ? [] : [...start];
  let opaque = start === undefined && context.windows && (isUnc(path) || otherDrive(context, path));
  const p = start === undefined ? absolute(context, path) : toPosixPath(path, context.windows);
  const verbatim = /^[\\/]{2}\?[\\/]/.test(path);
  for (const raw of p.split("/")) {
    const segment = context.windows && !verbatim ? windowsSegment(raw) : raw;
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      stack.pop();
      continue;
    }
    stack.push(segment);
    const alias = aliasOf(stack);
    if (alias === undefined) continue;
    if (alias === "opaque") opaque = true;
    else stack.splice(0, stack.length, ...alias);
  }
  // A path that goes on through a file descriptor (`/dev/fd/3/etc`) names whatever that descriptor is.
  opaque ||= throughDescriptor(stack);
  return { path: `/${stack.join("/")}`, opaque };
};

/**
 * A Windows path whose target is not a file of a local drive, or not known from its text: a UNC
 * share (`\\\\server\\share`, `\\\\?\\UNC\\server\\share`), or a device or volume namespace path
 * that does not start with a drive letter (`\\\\.\\PhysicalDrive0`, `\\\\?\\Volume{…}`, `\\\\?\\GLOBALROOT`).
 */
const isUnc = (path: string): boolean => /^[\\/]{2}(?:(?![?.][\\/])|[?.][\\/](?![A-Za-z]:(?:[\\/]|$)))/.test(path);

const digits = /^[0-9]+$/;
const selfNames = new Set(["self", "thread-self", String(process.pid)]);

/**
 * What the segments read so far stand for, when they end in an alias: `/proc/<p>/root` (and
 * `/proc/<p>/task/<t>/root`) of this process is the root. Another process's root is opaque (it may
 * be another mount namespace or a chroot), and so is any process's `cwd`: whose working directory
 * it is depends on which process opens the path.
 */
const aliasOf = (stack: readonly string[]): readonly string[] | "opaque" | undefined => {
  if (stack[0] !== "proc" || stack.length < 3) return undefined;
  const owner = stack[1]!;
  if (!selfNames.has(owner) && !digits.test(owner)) return undefined;
  const task = stack.length === 5 && stack[2] === "task" && digits.test(stack[3]!);
  if (stack.length !== 3 && !task) return undefined;
  const last = stack.at(-1);
  if (last !== "root" && last !== "cwd") return undefined;
  return last === "root" && selfNames.has(owner) ? [] : "opaque";
};

/**
 * True when the path names or goes through an open file descriptor (`/dev/fd/N`, `/dev/stdin`,
 * `/proc/<p>/fd/N`, each also with more after it) or a process's mapped file (`/proc/<p>/map_files/…`).
 * What such a path opens depends on the process (`self`) or on another process's state, which
 * `realpath` here may not be allowed to read, or may read differently from the tool.
 */
const throughDescriptor = (stack: readonly string[]): boolean => {
  if (stack[0] === "dev")
    return (stack[1] === "fd" && stack.length > 2) || (/^std(?:in|out|err)$/.test(stack[1] ?? "") && stack.length > 1);
  if (stack[0] !== "proc" || stack.length < 4) return false;
  const owner = stack[1]!;
  if (!selfNames.has(owner) && !digits.test(owner)) return false;
  const at = stack[2] === "task" ? 4 : 2;
  return (stack[at] === "fd" || stack[at] === "map_files") && stack.length > at + 1;
};

/** How many links one path may go through, as the kernel's ELOOP limit. */
const maxLinks = 40;

/**
 * The path with symbolic links resolved: `realpath` of the longest existing prefix of the path as
 * given (so `link/..` is the link target's parent, as the kernel reads it), then the rest walked on
 * from there. A dangling link on the way is followed to where it points, since a tool that writes
 * through it creates its target. Too many links make the path opaque.
 */
const resolveLinks = (context: PathContext, path: string, hops = 0): Walked => {
  if (hops > maxLinks) return { path: walk(context, path).path, opaque: true };
  const native = context.windows ? win32.resolve(context.cwd, path) : absolute(context, path);
  const separator = context.windows ? "\\" : "/";
  const segments = native.split(context.windows ? /[\\/]/ : "/");
  const prefix = (k: number): string => segments.slice(0, k).join(separator) || "/";
  const entry = (k: number) => {
    try {
      return lstatSync(prefix(k), { throwIfNoEntry: false });
    } catch {
      return undefined; // unreadable or too long: as missing
    }
  };
  const real = (k: number): string[] =>
    toPosixPath(realpathSync.native(prefix(k)), context.windows)
      .split("/")
      .filter((s) => s !== "");
  try {
    return walk(context, "", real(segments.length)); // the common case: the whole path exists
  } catch {
    // resolved below, from the longest prefix that exists
  }
  // A prefix exists only if every shorter one does: binary search.
  let lo = 1;
  let hi = segments.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (entry(mid) !== undefined) lo = mid;
    else hi = mid - 1;
  }
  const stat = entry(lo);
  const rest = segments.slice(lo).join("/");
  if (stat === undefined) return walk(context, path);
  try {
    return walk(context, rest, real(lo));
  } catch {
    if (!stat.isSymbolicLink()) return { path: walk(context, path).path, opaque: true };
    // A dangling link: follow it by hand, from the directory it is in.
    const target = readlinkSync(prefix(lo));
    const parent = prefix(lo - 1);
    const next = context.windows ? win32.resolve(parent, target) : target.startsWith("/") ? target : `${parent}/${target}`;
    return resolveLinks(context, rest === "" ? next : `${next}/${rest}`, hops + 1);
  }
};
