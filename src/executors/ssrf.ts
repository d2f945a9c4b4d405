/**
 * The SSRF guard for HTTP hooks (E4, E5). Every address a hostname resolves to is checked at
 * connect time, inside the socket's own `lookup`, so the address that was checked is the
 * address that is connected to: no DNS-rebinding window. Addresses are parsed strictly; odd
 * spellings (`0x7f000001`, `2130706433`, octal) from a resolver are refused, and the URL
 * parser has already turned them into canonical form when they appear in a URL.
 */
import { lookup as dnsLookup } from "node:dns/promises";
import type { LookupAddress, LookupOptions } from "node:dns";
import { isIP } from "node:net";
import { ExecutorError } from "./errors.ts";

/** What kind of address this is, for the policy. */
export type AddressClass =
  | "public"
  | "loopback"
  | "private"
  | "link-local"
  | "metadata"
  | "unspecified"
  | "multicast"
  | "reserved"
  | "invalid";

/** Which non-public classes an HTTP hook may reach. Everything else non-public is always refused. */
export interface AddressPolicy {
  readonly loopback?: boolean;
  /** RFC 1918, CGNAT 100.64/10, fc00::/7. */
  readonly private?: boolean;
  /** 169.254/16 and fe80::/10, except metadata addresses. */
  readonly linkLocal?: boolean;
  /** Cloud metadata endpoints (169.254.169.254, fd00:ec2::254, 100.100.100.200). */
  readonly metadata?: boolean;
}

/** Resolve a hostname to every address it has. Tests inject one to simulate rebinding. */
export type Resolver = (hostname: string) => Promise<readonly { readonly address: string; readonly family: number }[]>;

/**
 * The system resolver (getaddrinfo), all addresses in the order returned.
 *
 * @example
 * await systemResolver("localhost") // [{ address: "127.0.0.1", family: 4 }, ...]
 */
export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

const parseV4 = (ip: string): number | undefined => {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!m) return undefined;
  let n = 0;
  for (const part of m.slice(1)) {
    if ((part.length > 1 && part.startsWith("0")) || Number(part) > 255) return undefined; // octal-looking or out of range
    n = n * 256 + Number(part);
  }
  return n;
};

const inV4 = (n: number, base: string, bits: number): boolean => {
  const b = parseV4(base)!;
  const size = 2 ** (32 - bits);
  return Math.floor(n / size) === Math.floor(b / size);
};

const classifyV4 = (n: number): AddressClass => {
  if (n === parseV4("169.254.169.254") || n === parseV4("100.100.100.200")) return "metadata";
  if (inV4(n, "0.0.0.0", 8)) return "unspecified";
  if (inV4(n, "127.0.0.0", 8)) return "loopback";
  if (inV4(n, "10.0.0.0", 8) || inV4(n, "172.16.0.0", 12) || inV4(n, "192.168.0.0", 16) || inV4(n, "100.64.0.0", 10)) return "private";
  if (inV4(n, "169.254.0.0", 16)) return "link-local";
  if (inV4(n, "224.0.0.0", 4)) return "multicast";
  if (
    inV4(n, "240.0.0.0", 4) ||
    inV4(n, "192.0.0.0", 24) ||
    inV4(n, "192.0.2.0", 24) ||
    inV4(n, "198.51.100.0", 24) ||
    inV4(n, "203.0.113.0", 24) ||
    inV4(n, "198.18.0.0", 15)
  )
    return "reserved";
  return "public";
};

/** Eight 16-bit groups, or undefined for anything that is not a plain IPv6 address. */
const parseV6 = (ip: string): number[] | undefined => {
  if (isIP(ip) !== 6) return undefined;
  let text = ip.toLowerCase();
  // A trailing dotted quad (`::ffff:127.0.0.1`) is two hex groups written differently.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = parseV4(dotted[1]!);
    if (v4 === undefined) return undefined;
    text = `${text.slice(0, -dotted[1]!.length)}${Math.floor(v4 / 65536).toString(16)}:${(v4 % 65536).toString(16)}`;
  }
  const [head, rest] = text.includes("::") ? text.split("::") : [text, undefined];
  const parts = (s: string | undefined): number[] =>
    s
      ? s
          .split(":")
          .filter((x) => x !== "")
          .map((h) => parseInt(h, 16))
      : [];
  const left = parts(head);
  const right = parts(rest);
  const fill = 8 - left.length - right.length;
  if (rest === undefined && fill !== 0) return undefined;
  return [...left, ...Array<number>(Math.max(fill, 0)).fill(0), ...right];
};

const classifyV6 = (g: number[]): AddressClass => {
  const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, h = 0, i = 0] = g;
  const v4 = (hi: number, lo: number): AddressClass => classifyV4(hi * 65536 + lo);
  if (g.every((x) => x === 0)) return "unspecified";
  if (a === 0 && b === 0 && c === 0 && d === 0 && e === 0 && f === 0 && h === 0 && i === 1) return "loopback";
  if (a === 0 && b === 0 && c === 0 && d === 0 && e === 0 && (f === 0xffff || f === 0)) return v4(h, i); // mapped / compatible
  if (a === 0x64 && b === 0xff9b && c === 0 && d === 0 && e === 0 && f === 0) return v4(h, i); // NAT64
  if (a === 0x2002) return v4(b, c); // 6to4
  if (a === 0xfd00 && b === 0x0ec2 && c === 0 && d === 0 && e === 0 && f === 0 && h === 0 && i === 0x254) return "metadata";
  if ((a & 0xfe00) === 0xfc00 || (a & 0xffc0) === 0xfec0) return "private";
  if ((a & 0xffc0) === 0xfe80) return "link-local";
  if ((a & 0xff00) === 0xff00) return "multicast";
  if (
    (a === 0x2001 && b === 0) ||
    (a === 0x2001 && b === 0x0db8) ||
    (a === 0x64 && b === 0xff9b) ||
    (a === 0x100 && b === 0 && c === 0 && d === 0)
  )
    return "reserved"; // Teredo (embeds a hidden v4), documentation, local NAT64, discard
  return "public";
};

/**
 * Classify an IP address written canonically. Non-canonical forms are `invalid`.
 *
 * @example
 * classifyAddress("::ffff:127.0.0.1") // "loopback"
 * classifyAddress("2130706433")       // "invalid"
 */
export const classifyAddress = (ip: string): AddressClass => {
  const bare = ip.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const v4 = parseV4(bare);
  if (v4 !== undefined) return classifyV4(v4);
  const v6 = parseV6(bare);
  return v6 ? classifyV6(v6) : "invalid";
};

const allowed = (cls: AddressClass, policy: AddressPolicy): boolean =>
  cls === "public" ||
  (cls === "loopback" && policy.loopback === true) ||
  (cls === "private" && policy.private === true) ||
  (cls === "link-local" && policy.linkLocal === true) ||
  (cls === "metadata" && policy.metadata === true);

/**
 * Refuse an address the policy does not allow, with an `ExecutorError("blocked-address")`.
 *
 * @example
 * checkAddress("169.254.169.254", { loopback: true }, "metadata.internal") // throws: refused to connect to metadata.internal (169.254.169.254): metadata address not allowed
 */
export const checkAddress = (ip: string, policy: AddressPolicy, host = ip): void => {
  const cls = classifyAddress(ip);
  if (!allowed(cls, policy))
    throw new ExecutorError(
      "blocked-address",
      `refused to connect to ${host}${host === ip ? "" : ` (${ip})`}: ${cls} address${cls === "invalid" ? " (not a canonical IP)" : ""} not allowed`,
    );
};

/** The callback `dns.lookup` answers through, which `guardedLookup` keeps. */
export type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for `http.request` that resolves with `resolver` and refuses the connection if
 * any resolved address is not allowed. Handles both the single and the `all: true` forms.
 *
 * @example
 * http.request(url, { lookup: guardedLookup({ loopback: true }) })
 */
export const guardedLookup =
  (policy: AddressPolicy, resolver: Resolver = systemResolver) =>
  (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolver(hostname)
      .then((found) => {
        if (found.length === 0) throw new ExecutorError("network", `${hostname} did not resolve to any address`);
        for (const a of found) checkAddress(a.address, policy, hostname);
        const wanted = options.family === 4 || options.family === 6 ? found.filter((a) => a.family === options.family) : found;
        const list = (wanted.length ? wanted : found).map((a) => ({ address: a.address, family: a.family }));
        if (options.all) callback(null, list);
        else callback(null, list[0]!.address, list[0]!.family);
      })
      .catch((error: NodeJS.ErrnoException) => callback(error, ""));
  };
