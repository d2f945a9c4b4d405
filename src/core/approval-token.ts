/**
 * Signed approval tokens and input digests (node:crypto). A token is
 * `ao1.<payload>.<signature>`: the payload is base64url JSON naming the approval, what it is
 * about (point, hook, a SHA-256 digest of the input) and when it expires; the signature is
 * HMAC-SHA256 over `ao1.<payload>` with the application's key. Keys rotate: the first key signs,
 * every key given verifies.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";

const version = "ao1";

/** What a token signs. */
export interface TokenClaims {
  readonly id: string;
  readonly point: string;
  readonly hook: string;
  readonly digest: string;
  /** When it was asked and when it expires, in ms since the epoch. */
  readonly iat: number;
  readonly exp: number;
}

/** The smallest key accepted, in bytes: HMAC-SHA256's own output size. */
export const minKeyBytes = 32;

/**
 * Keys as bytes, checked: at least one, each at least `minKeyBytes` long.
 *
 * @example
 * signingKeys("a".repeat(32)).length // 1
 */
export const signingKeys = (key: unknown, who = "durableApprovals"): readonly Uint8Array[] => {
  const list = Array.isArray(key) ? (key as unknown[]) : [key];
  if (list.length === 0) throw new TypeError(`${who}: key must be a secret of at least ${minKeyBytes} bytes, or a non-empty list of them`);
  return list.map((k, i) => {
    const bytes = typeof k === "string" ? Buffer.from(k, "utf8") : k instanceof Uint8Array ? k : undefined;
    const where = Array.isArray(key) ? `key[${i}]` : "key";
    if (bytes === undefined)
      throw new TypeError(`${who}: ${where} must be a string or a Uint8Array, got ${k === null ? "null" : typeof k}`);
    if (bytes.byteLength < minKeyBytes)
      throw new TypeError(
        `${who}: ${where} must be at least ${minKeyBytes} bytes (got ${bytes.byteLength}); use a random secret, e.g. crypto.randomBytes(32)`,
      );
    return new Uint8Array(bytes);
  });
};

const mac = (key: Uint8Array, text: string): Buffer => createHmac("sha256", key).update(text).digest();

/**
 * Sign `claims` with the first key.
 *
 * @example
 * const token = signToken({ id: "a1", point: "toolCall", hook: "approval", digest: "x", iat: 0, exp: 1 }, keys)
 */
export const signToken = (claims: TokenClaims, keys: readonly Uint8Array[]): string => {
  const signed = `${version}.${Buffer.from(JSON.stringify(claims), "utf8").toString("base64url")}`;
  return `${signed}.${mac(keys[0] as Uint8Array, signed).toString("base64url")}`;
};

/**
 * The claims of a token one of `keys` signed, or why it is not one: "malformed" (not a token of
 * ours) or "signature" (another key signed it, or it was changed).
 *
 * @example
 * readToken(signToken(claims, keys), keys) // { ok: true, claims }
 * readToken("ao1.e30.AAAA", keys)         // { ok: false, problem: "signature" }
 */
export const readToken = (
  token: unknown,
  keys: readonly Uint8Array[],
): { readonly ok: true; readonly claims: TokenClaims } | { readonly ok: false; readonly problem: "malformed" | "signature" } => {
  if (typeof token !== "string" || token.length > 16_384) return { ok: false, problem: "malformed" };
  const parts = token.split(".");
  if (parts.length !== 3 || parts[0] !== version) return { ok: false, problem: "malformed" };
  const signed = `${parts[0]}.${parts[1]}`;
  const given = Buffer.from(parts[2] as string, "base64url");
  if (
    !keys.some((k) => {
      const expect = mac(k, signed);
      return given.length === expect.length && timingSafeEqual(given, expect);
    })
  )
    return { ok: false, problem: "signature" };
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(parts[1] as string, "base64url").toString("utf8"));
  } catch {
    return { ok: false, problem: "malformed" };
  }
  const c = claims as Partial<TokenClaims> | null;
  const text = (v: unknown) => typeof v === "string" && v !== "";
  if (
    typeof c !== "object" ||
    c === null ||
    !text(c.id) ||
    !text(c.point) ||
    !text(c.hook) ||
    !text(c.digest) ||
    !Number.isFinite(c.iat) ||
    !Number.isFinite(c.exp)
  )
    return { ok: false, problem: "malformed" };
  return { ok: true, claims: c as TokenClaims };
};

/**
 * JSON with object keys sorted at every level, so equal data has one text (what digests hash).
 * Entries whose value JSON leaves out (undefined, functions) are left out.
 *
 * @example
 * canonicalJson({ b: 1, a: [2, { d: 3, c: 4 }] }) // '{"a":[2,{"c":4,"d":3}],"b":1}'
 */
export const canonicalJson = (value: unknown): string => {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  const json = (value as { toJSON?: unknown }).toJSON;
  if (typeof json === "function") return canonicalJson(json.call(value));
  if (Array.isArray(value))
    return `[${value.map((v) => (v === undefined || typeof v === "function" || typeof v === "symbol" ? "null" : canonicalJson(v))).join(",")}]`;
  const entries: string[] = [];
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key];
    if (v === undefined || typeof v === "function" || typeof v === "symbol") continue;
    entries.push(`${JSON.stringify(key)}:${canonicalJson(v)}`);
  }
  return `{${entries.join(",")}}`;
};

/**
 * SHA-256 of a value's canonical JSON, base64url: equal data, equal digest, whatever its key order.
 *
 * @example
 * digestOf({ a: 1, b: 2 }) === digestOf({ b: 2, a: 1 }) // true
 */
export const digestOf = (value: unknown): string => createHash("sha256").update(canonicalJson(value)).digest("base64url");

/**
 * HMAC-SHA256, under the first key, of `value`'s canonical JSON for `purpose` (so that a signature
 * made for one kind of value is never taken for another, nor for a token): `ao1.<base64url>`.
 *
 * @example
 * signValue("turn-state", { runId: "r1" }, keys) // "ao1.Zm9v…"
 */
export const signValue = (purpose: string, value: unknown, keys: readonly Uint8Array[]): string =>
  `${version}.${mac(keys[0] as Uint8Array, `${purpose}\n${canonicalJson(value)}`).toString("base64url")}`;

/**
 * True when `signature` is `signValue(purpose, value, [k])` for one of `keys`, compared in constant time.
 *
 * @example
 * valueSigned("turn-state", state, signValue("turn-state", state, keys), keys) // true
 */
export const valueSigned = (purpose: string, value: unknown, signature: unknown, keys: readonly Uint8Array[]): boolean => {
  if (typeof signature !== "string" || !signature.startsWith(`${version}.`) || signature.length > 128) return false;
  const given = Buffer.from(signature.slice(version.length + 1), "base64url");
  const text = `${purpose}\n${canonicalJson(value)}`;
  return keys.some((k) => {
    const expect = mac(k, text);
    return given.length === expect.length && timingSafeEqual(given, expect);
  });
};
