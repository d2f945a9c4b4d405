/**
 * The credential detectors: tokens of known formats (see `secret-rules.ts`), values assigned to
 * a name that says they are secret (`GITHUB_TOKEN=…`, `"password": "…"`, `Authorization: Bearer
 * …`), PEM private keys and passwords in URLs. Each looks only where a cheap search says one may
 * be: a long run of token characters (`token-runs.ts`), an `@`, a `PRIVATE KEY` header, a
 * webhook's host name, so that text holding none costs a few reads in twelve characters.
 * Randomness is judged only in an assignment to such a name, never over any long run: hashes,
 * paths, URLs and ids elsewhere are left alone.
 */
import type { Detector } from "./detectors.ts";
import { notSecretNames, runStartRules, secretKeywords, tokenRules, urlRules, wholeSecretNames } from "./secret-rules.ts";
import { ASSIGNMENT_REACH } from "./assignment-reach.ts";
import { isRunChar, runAround, tokenCandidates, tokenStarts } from "./token-runs.ts";
import { codeUnits } from "./char-windows.ts";

type Match = { readonly start: number; readonly end: number };

type Compiled = { readonly prefixes: readonly string[]; readonly re: RegExp };
/** Compiled token rules by the first code unit of their prefixes (all ASCII), for the one-character prefixes. */
const byFirst: (Compiled[] | undefined)[] = Array.from({ length: 128 }, () => undefined);
/**
 * Compiled token rules by the first two code units of their prefixes, as `first * 128 + second`:
 * a place that starts with `sh` (every `sha512-` of a lock file) is compared with the prefixes of
 * the two rules whose prefixes start so, not with those of the ten that start with `s`.
 */
const byPair: (Compiled[] | undefined)[] = Array.from({ length: 128 * 128 }, () => undefined);
/** The first code units of one-character prefixes. */
const SINGLE = new Uint8Array(128);
for (const rule of tokenRules) {
  const re = new RegExp(rule.token, "y");
  for (const first of new Set(rule.prefixes.map((p) => p.charCodeAt(0)))) {
    const list = (byFirst[first] ??= []);
    list.push({ prefixes: rule.prefixes.filter((p) => p.charCodeAt(0) === first), re });
  }
  for (const pair of new Set(rule.prefixes.filter((p) => p.length >= 2).map((p) => p.charCodeAt(0) * 128 + p.charCodeAt(1)))) {
    const list = (byPair[pair] ??= []);
    list.push({ prefixes: rule.prefixes.filter((p) => p.length >= 2 && p.charCodeAt(0) * 128 + p.charCodeAt(1) === pair), re });
  }
  for (const p of rule.prefixes) if (p.length === 1) SINGLE[p.charCodeAt(0)] = 1;
}

/**
 * The rules for run starts only (`runStartRules`, none with a one-character prefix), by the first
 * two code units of their prefixes: compared only where a run starts or follows `=`, so that the
 * places inside runs (every `sha512-` of a lock file) are compared with no more prefixes than before.
 */
// With `tokenRules`' own of the same pair first, so that a run start costs one lookup.
const startByPair: (Compiled[] | undefined)[] = byPair.map((list) => list?.slice());
for (const rule of runStartRules) {
  const re = new RegExp(rule.token, "y");
  for (const pair of new Set(rule.prefixes.map((p) => p.charCodeAt(0) * 128 + p.charCodeAt(1)))) {
    if (SINGLE[Math.floor(pair / 128)] === 1)
      throw new Error(`runStartRules: ${rule.id} shares its first character with a one-character prefix`);
    const list = (startByPair[pair] ??= []);
    list.push({ prefixes: rule.prefixes.filter((p) => p.charCodeAt(0) * 128 + p.charCodeAt(1) === pair), re });
  }
}
/** `rulesAt` for a place where a run starts or a `=` is followed: the rules for run starts too. */
const startRulesAt = (text: string, at: number): Compiled[] | undefined => {
  const first = text.charCodeAt(at);
  if (!(first < 128)) return undefined;
  if (SINGLE[first] === 1) return byFirst[first];
  const second = text.charCodeAt(at + 1);
  return second < 128 ? startByPair[first * 128 + second] : undefined;
};

/** Whether one of `prefixes` starts at `at`. */
const startsWithOne = (text: string, at: number, prefixes: readonly string[]): boolean => {
  // The third and fourth characters tell most prefixes sharing the first two apart (`sha256~`
  // from `sha512-`), with no call.
  const third = text.charCodeAt(at + 2);
  const fourth = text.charCodeAt(at + 3);
  for (let i = 0; i < prefixes.length; i++) {
    const p = prefixes[i] as string;
    if ((p.length < 3 || p.charCodeAt(2) === third) && (p.length < 4 || p.charCodeAt(3) === fourth) && text.startsWith(p, at)) return true;
  }
  return false;
};

/** The rules whose prefix may start at `at`, by its first two code units; none for most places. */
const rulesAt = (text: string, at: number): Compiled[] | undefined => {
  const first = text.charCodeAt(at);
  if (!(first < 128)) return undefined;
  if (SINGLE[first] === 1) return byFirst[first];
  const second = text.charCodeAt(at + 1);
  return second < 128 ? byPair[first * 128 + second] : undefined;
};

/** The end of a known token starting at `at`, if one does; `runStart`: `at` starts a run or follows a `=` in one. */
const tokenAt = (text: string, at: number, runStart: boolean): number | undefined =>
  tokenOf(runStart ? startRulesAt(text, at) : rulesAt(text, at), text, at);

/** The end of a token of one of `rules` starting at `at`, if one does. */
const tokenOf = (rules: Compiled[] | undefined, text: string, at: number): number | undefined => {
  if (rules === undefined) return undefined;
  for (let i = 0; i < rules.length; i++) {
    const { prefixes, re } = rules[i] as Compiled;
    if (!startsWithOne(text, at, prefixes)) continue;
    re.lastIndex = at;
    const m = re.exec(text);
    if (m !== null) return at + m[0].length;
  }
  return undefined;
};

/** Whether a known token's prefix starts at `at` (a stream holds such a run until it ends). */
const prefixAt = (text: string, at: number): boolean => prefixOf(startRulesAt(text, at), text, at);
const prefixOf = (rules: Compiled[] | undefined, text: string, at: number): boolean => {
  if (rules === undefined) return false;
  for (let i = 0; i < rules.length; i++) if (startsWithOne(text, at, (rules[i] as Compiled).prefixes)) return true;
  return false;
};

/**
 * A URL pattern that also reads slashes escaped as JSON may write them (`https:\/\/hooks…`, as
 * PHP's `json_encode` does): each `/` may follow a backslash, and each class that holds `/` holds
 * the backslash too.
 */
const slashesEscaped = (source: string): string => {
  let out = "";
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i] as string;
    if (c === "\\") out += c + (source[++i] as string);
    else if (inClass) {
      if (c === "]") inClass = false;
      out += c === "/" ? "/\\\\" : c;
    } else if (c === "[") (inClass = true), (out += c);
    else out += c === "/" ? "\\\\?/" : c;
  }
  return out;
};
const compiledUrlRules = urlRules.map((rule) => ({
  ...rule,
  re: new RegExp(rule.url, "y"),
  escaped: new RegExp(slashesEscaped(rule.url), "y"),
}));

/**
 * Where the URL whose `//` starts the run at `start` begins (its `http:` or `https:`), if it is
 * one. In a URL written with escaped slashes (`https:\/\/host`) the run starts at the second slash.
 */
const urlStart = (text: string, start: number): number | undefined => {
  if (text.startsWith("//", start)) {
    if (text.startsWith("https:", start - 6)) return start - 6;
    if (text.startsWith("http:", start - 5)) return start - 5;
    return undefined;
  }
  if (text.charCodeAt(start) !== 47 || !text.startsWith(":\\/\\/", start - 4)) return undefined;
  if (text.startsWith("https", start - 9)) return start - 9;
  if (text.startsWith("http", start - 8)) return start - 8;
  return undefined;
};

/** The first characters of the URL whose run starts at `start`, its escaped slashes read as slashes. */
const urlHead = (text: string, start: number): string => {
  const head = text.slice(start, start + 56);
  return text.charCodeAt(start - 1) === 92 ? head.replaceAll("\\/", "/") : head;
};

/** The end of a webhook URL whose run starts at `start` (with its `//`), if it is one. */
const webhookAt = (text: string, start: number): Match | undefined => {
  const url = urlStart(text, start);
  if (url === undefined) return undefined;
  // A URL with escaped slashes (`https:\/\/hooks.slack.com\/…`, rare) is read by its rules' escaped
  // patterns, and its head with the slashes unescaped.
  const escaped = text.charCodeAt(start - 1) === 92;
  const head = escaped ? urlHead(text, start) : text.slice(start, start + 48);
  for (const rule of compiledUrlRules) {
    if (!head.includes(rule.anchor)) continue;
    const re = escaped ? rule.escaped : rule.re;
    re.lastIndex = url;
    const m = re.exec(text);
    if (m !== null) return { start: url, end: url + m[0].length };
  }
  return undefined;
};

export { ASSIGNMENT_REACH };

/**
 * API keys and tokens of known formats: OpenAI and Anthropic (`sk-`), GitHub, GitLab, Slack
 * tokens and webhook URLs, Stripe, AWS access key ids, Google API keys, npm, SendGrid, Shopify,
 * Hugging Face, Groq, Linear, Notion, Vault, Vercel, Databricks, Docker, Figma, Cloudflare,
 * Tailscale, 1Password, DigitalOcean, PyPI, JWTs and more (see `secret-rules.ts`). A token is
 * found whole, however long, when it starts a run of token characters or follows `=`, including
 * right after a JSON or URL escape (`\nsk-…`, `%3Dghp_…`).
 *
 * @example
 * scan("key=ghp_" + "A1b2".repeat(9), [apiKey])[0]?.kind // "api_key"
 */
export const apiKey: Detector = {
  kind: "api_key",
  window: 48,
  minLength: 16,
  *find(text, from = 0) {
    const candidates = tokenCandidates(text);
    // The end of the last token found: a place inside it is no new token.
    let found = 0;
    for (let k = 0; k < candidates.length; k += 2) {
      const s = candidates[k] as number;
      if (s < from || s < found) continue;
      if ((candidates[k + 1] as number) < 0) {
        const e = tokenAt(text, s, false);
        if (e !== undefined) yield { start: s, end: (found = e) };
        continue;
      }
      // A URL's run starts with `//` (the colon ends the one before): a webhook URL is a credential whole.
      if (text.charCodeAt(s) === 47) {
        const hook = webhookAt(text, s);
        if (hook !== undefined && hook.start >= from) yield hook;
        continue;
      }
      const e = tokenAt(text, s, true);
      if (e !== undefined) yield { start: s, end: (found = e) };
    }
  },
  partial(text, from = 0) {
    // A token whose run reaches the end of the text may go on: it is judged whole, so it is held.
    const last = text.length - 1;
    if (last < from || !isRunChar(text, last)) return undefined;
    const run = runAround(text, last, 8192);
    for (const s of tokenStarts(text, run.start, text.length)) if (s >= from && prefixAt(text, s)) return s;
    const url = urlStart(text, run.start);
    if (url !== undefined && url >= from && compiledUrlRules.some((rule) => urlHead(text, run.start).includes(rule.anchor))) return url;
    return undefined;
  },
};

/**
 * Quotes beyond ASCII a name or a value may be written in: guillemets (`«password»`), typographic
 * quotes (`“token”`, `‘key’`, `„…“`), corner brackets and full-width quotes.
 */
const unicodeQuotes = "\u00ab\u00bb\u2039\u203a\u201c\u201d\u201e\u201f\u2018\u2019\u201a\u201b\u300c\u300d\u300e\u300f\uff02\uff07";
/** Look-alikes of `:` and `=` that read as an assignment's operator (`password：…`, `token＝…`, `key∶ …`). */
const unicodeOperators = "\uff1a\uff1d\u2236\ua789\ufe55\ufe13\u02f8\u05c3\u2254\ufe66";
const UNICODE_QUOTE = new Set([...unicodeQuotes].map((c) => c.charCodeAt(0)));
const UNICODE_COLON = new Set([...unicodeOperators].map((c) => c.charCodeAt(0)));
/** Quotes (maybe escaped) and spaces around an assignment's operator. */
const isQuoteOrSpace = (c: number): boolean =>
  c === 32 || c === 9 || c === 34 || c === 39 || c === 96 || c === 92 || (c > 127 && UNICODE_QUOTE.has(c));
const isNameChar = (c: number): boolean =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45 || c === 46;
const keyword = new RegExp(secretKeywords, "i");
const wholeName = new RegExp(`^(?:${wholeSecretNames})$`, "i");
const notSecretName = new RegExp(`(?:^|[^A-Za-z])(?:${notSecretNames})(?:$|[^A-Za-z])`, "i");
/** Flags that take their value after a space: `--password s3cret`, `-token …`. */
const secretFlag = /^--?[A-Za-z0-9-]*(?:password|passwd|token|secret|api-key)$/i;
const schemes = /^(?:token|basic|digest|apikey|key)$/i;

/** The letters one of which every word `secretKeywords` matches holds, in either case (a test checks each). */
const KEYWORD_LETTER = new Uint8Array(128);
for (const c of "kwchKWCH") KEYWORD_LETTER[c.charCodeAt(0)] = 1;

/** The word ending at `end` (name characters), looking back at most to `floor`. */
const wordBefore = (text: string, u: Uint16Array, end: number, floor: number): string => {
  let j = end;
  while (j > floor && isNameChar(u[j - 1] as number)) j--;
  return text.slice(j, end);
};

/**
 * Whether a name says its value is secret (`password`, `apiKey`, `GITHUB_TOKEN`), and is not
 * one of the names that only hold the word (`token_count`, `public_key`).
 *
 * @example
 * namesSecret("client_secret") // true
 */
export const namesSecret = (name: string): boolean => {
  // Names repeat (`request_id=`, `"version":` on every line): each is judged once.
  let known = judged.get(name);
  if (known === undefined) {
    known = (keyword.test(name) || wholeName.test(name)) && !notSecretName.test(name);
    if (judged.size >= 4096) judged.clear();
    judged.set(name, known);
  }
  return known;
};
const judged = new Map<string, boolean>();

/** Skip quotes and spaces backwards from `i`, at most 8. */
const skipQuotes = (text: string, u: Uint16Array, i: number, floor: number): number => {
  let k = 0;
  for (; i > floor && k < 8; k++) {
    const c = u[i - 1] as number;
    if (isQuoteOrSpace(c)) i--;
    else if (c === 59) {
      // A quote written as an HTML entity (`token=&quot;…&quot;`, `&#39;`).
      const entity = htmlQuote.exec(text.slice(Math.max(floor, i - 8), i));
      if (entity === null) break;
      i -= entity[0].length;
    } else break;
  }
  return i;
};
/** A quote written as an HTML entity, at the end of a piece of text. */
const htmlQuote = /&(?:quot|apos|#0*3[49]|#[xX]0*2[27]);$/;

/** What names a value: nothing, an assignment or a flag, an HTTP authorization scheme. */
type Named = 0 | 1 | 2;
const NONE = 0;
const ASSIGNED = 1;
const SCHEME = 2;

/** What can stand right before a named value (see `namedSecret`), by code unit. */
const BEFORE_NAMED = new Uint8Array(128);
for (const c of " \t\"'`\\=:>,DdAa;") BEFORE_NAMED[c.charCodeAt(0)] = 1;
const mayFollowName = (c: number): boolean => (c < 128 ? BEFORE_NAMED[c] === 1 : UNICODE_QUOTE.has(c) || UNICODE_COLON.has(c));

/**
 * What in the text before `at` names a secret: an assignment to a name holding a keyword
 * (`NAME=`, `"name": "`, `name: `, `name := `, `name => `, `name%3D`), a flag (`--token `), or an
 * HTTP authorization scheme (`Bearer `, `Authorization: Basic `). Read backwards from the value,
 * a few characters each: most runs have no name before them at all.
 */
const namedSecret = (text: string, at: number): Named => {
  // What can stand right before a named value: a quote, a space, an operator (`=`, `:`, `=>`,
  // `,`), or the end of `%3D`/`%3A`. Most runs follow something else (`.`, `(`, `/`): nothing to read.
  if (!mayFollowName(text.charCodeAt(at - 1))) return NONE;
  // Read from the copy of the text's code units (see `codeUnits`), only before `at`.
  const u = codeUnits(text);
  const floor = Math.max(0, at - ASSIGNMENT_REACH);
  const afterOperator = skipQuotes(text, u, at, floor);
  let i = afterOperator;
  let element = false;
  const c = u[i - 1] as number;
  if (c === 61) {
    i--; // =, :=, ?=
    const p = u[i - 1] as number;
    if (p === 58 || p === 63) i--;
  } else if (c === 58 || (c > 127 && UNICODE_COLON.has(c))) i--;
  else if (c === 62 && (u[i - 2] as number) === 61) i -= 2;
  // An XML element's text (`<password>…</password>`, `<apiKey>…`): its name follows a `<`.
  else if (c === 62 && afterOperator === at && isNameChar(u[i - 2] as number)) i--, (element = true);
  // A quoted name and its value as a call's arguments: `getenv("api_token", "…")`.
  else if (c === 44 && afterOperator < at && (u[i - 2] as number) !== 32 && isQuoteOrSpace(u[i - 2] as number)) i--;
  else if (i >= 3 && (u[i - 3] as number) === 37 && (u[i - 2] as number) === 51 && /[DdAa]/.test(text[i - 1] as string)) i -= 3;
  else {
    // No operator: a flag or an authorization scheme, then at least one space.
    if (afterOperator === at || (u[at - 1] as number) !== 32) return NONE;
    // Most runs follow a space and a word that is none of these: its length and first letter say so.
    let j = afterOperator;
    while (j > floor && isNameChar(u[j - 1] as number)) j--;
    const length = afterOperator - j;
    const head = (u[j] as number) | 32;
    const flagged = (u[j] as number) === 45;
    if (
      !flagged &&
      !(
        (length === 6 && (head === 98 || head === 100 || head === 97)) ||
        (length === 5 && (head === 116 || head === 98)) ||
        (length === 3 && head === 107)
      )
    )
      return NONE;
    const word = text.slice(j, afterOperator);
    if (/^bearer$/i.test(word)) return SCHEME;
    if (flagged) return secretFlag.test(word) && (u[j - 1] as number) !== 45 ? ASSIGNED : NONE;
    if (!schemes.test(word)) return NONE;
    const before = skipQuotes(text, u, afterOperator - word.length, floor);
    const sep = u[before - 1] as number;
    return (sep === 58 || sep === 61) && /authorization$/i.test(wordBefore(text, u, skipQuotes(text, u, before - 1, floor), floor))
      ? SCHEME
      : NONE;
  }
  let end = skipQuotes(text, u, i, floor);
  // A subscript (`os.environ["API_KEY"] = …`, `config['password']: …`): the name is inside it.
  if ((u[end - 1] as number) === 93) end = skipQuotes(text, u, end - 1, floor);
  let j = end;
  // Every secret-naming word holds a `k`, `w`, `c` or `h` (`key`, `token`, `pwd`, `secret`,
  // `passphrase`): a name without one (`version`, `integrity`, `resolved`) is passed over
  // without a copy of it.
  let letters = 0;
  for (let c = u[j - 1] as number; j > floor && isNameChar(c); c = u[--j - 1] as number) letters |= KEYWORD_LETTER[c] as number;
  // An attribute pair naming a setting (`<add key="ApiKey" value="…" />`): the name is the quoted word before `value=`.
  if (letters === 0 && end - j === 5 && (u[j - 1] as number) === 32 && /^value$/i.test(text.slice(j, end))) {
    end = skipQuotes(text, u, j, floor);
    if (end === j - 1) return NONE;
    for (let c = u[(j = end) - 1] as number; j > floor && isNameChar(c); c = u[--j - 1] as number) letters |= KEYWORD_LETTER[c] as number;
  }
  if (element && (u[j - 1] as number) !== 60) return NONE;
  // Names with a keyword that hold no secret: `token_count`, `public_key`, `secret_name`, `max_tokens`.
  return letters !== 0 && namesSecret(text.slice(j, end)) ? ASSIGNED : NONE;
};

const counts = new Uint16Array(128);
/** Shannon entropy of `text[start, end)` in bits per code unit, without allocating. */
const bits = (text: string, start: number, end: number): number => {
  let other = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < 128) counts[c] = (counts[c] as number) + 1;
    else other++;
  }
  const n = end - start;
  let h = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128) continue;
    const k = counts[c] as number;
    if (k > 0) {
      h -= (k / n) * Math.log2(k / n);
      counts[c] = 0;
    }
  }
  if (other > 0) h -= (other / n) * Math.log2(other / n);
  return h;
};

/** A value that looks random enough to be a credential: a digit and letters, high entropy (gitleaks' generic rule: 3.5 bits). */
const randomValue = (text: string, start: number, end: number): boolean => {
  let digit = false;
  let letter = false;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) digit = true;
    else if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) letter = true;
  }
  if (!digit || !letter) return false;
  const first = text.charCodeAt(start);
  // A path, a version or a dotted name is not a credential.
  if (first === 47 || first === 46 || first === 126) return false;
  if (/^v?\d+(?:\.\d+)+(?:[-+][\w.-]*)?$/.test(text.slice(start, end))) return false;
  return bits(text, start, end) >= 3.5;
};

const awsSecretKey = /^[A-Za-z0-9/+]{40}$/;
const awsKeyIdBefore = /(?:AKIA|ASIA)[A-Z0-9]{16}[\s,;:="'|]{1,8}$/;

/**
 * Whether the 40 characters at `at` are an AWS secret access key following its access key id
 * (`AKIA…,wJalr…` in the console's CSV, or the two on one line): mixed case and a digit or `/`.
 */
const awsSecret = (text: string, at: number): boolean => {
  const value = text.slice(at, at + 40);
  if (!awsSecretKey.test(value) || !/[a-z]/.test(value) || !/[A-Z]/.test(value) || !/[\d/+]/.test(value)) return false;
  return awsKeyIdBefore.test(text.slice(Math.max(0, at - 28), at));
};

/** A placeholder for a credential: one case of letters and `_.-` only (`YOUR_API_TOKEN`, `your-token-here`). */
const placeholder = (text: string, start: number, end: number): boolean => /^(?:[A-Z_.-]+|[a-z_.-]+)$/.test(text.slice(start, end));

/** Where a value in a run ends: trailing dots and dashes are punctuation (`token=abc123.`). */
const valueEnd = (text: string, start: number, end: number): number => {
  let e = end;
  while (e > start && (text.charCodeAt(e - 1) === 46 || text.charCodeAt(e - 1) === 45)) e--;
  return e;
};

/** What a short password value may be made of, and what makes it one. */
const passwordValue = new RegExp(`[^\\s"'\`,;&<>()[\\]{}$\\\\${unicodeQuotes}]{6,128}`, "y");
const quoteClass = `(?:["'\`\\\\${unicodeQuotes}]|&(?:quot|apos|#0*3[49]|#[xX]0*2[27]);)`;
const passwordName = new RegExp(
  `(?<name>(?:passw(?:or)?d|passphrase|pwd)[A-Za-z0-9_.-]{0,24})${quoteClass}{0,3}\\]?${quoteClass}{0,3}\\s{0,3}(?<op>=|:=|:|=>|%3[DdAa]|[${unicodeOperators}]|>|value\\s{0,3}=)\\s{0,3}${quoteClass}{0,3}\\s{0,2}`,
  "iy",
);
/** A password after its name and blanks, with no operator, as `.netrc` and prose write one (`password hunter2!`). */
const passwordSpaced = /(?:passw(?:or)?d|passphrase)[ \t]{1,3}["'`]?(?=[^\s])/iy;
const notPassword =
  /^(?:string|str|text|none|null|nil|true|false|undefined|required|optional|password|passwd|secret|changeme|example|placeholder|redacted|hidden|masked|\*+|x+|\.+)$/i;

/**
 * Where a password's name may start: `password`, `passwd`, `passphrase`, `pwd`, in the usual cases
 * (`[Pp]assw`, `[Pp]assphrase`, `[Pp]wd`, `PASSW`, `PASSPHRASE`, `PWD`). The long ones by a
 * regular expression of five characters or more, which the engine searches for by skipping
 * through the text; `pwd` by a string search for `wd`, which no regular expression of three
 * characters matches as fast. No two of them overlap.
 */
const passAnchor = /[Pp]ass(?:w|phrase)|PASS(?:W|PHRASE)/g;
const passwordNames = (text: string): number[] => {
  const starts: number[] = [];
  passAnchor.lastIndex = 0;
  for (let hit = passAnchor.exec(text); hit !== null; hit = passAnchor.exec(text)) starts.push(hit.index);
  for (let at = text.indexOf("wd", 1); at !== -1; at = text.indexOf("wd", at + 2))
    if ((text.charCodeAt(at - 1) | 32) === 112) starts.push(at - 1);
  for (let at = text.indexOf("WD", 1); at !== -1; at = text.indexOf("WD", at + 2)) if (text.charCodeAt(at - 1) === 80) starts.push(at - 1);
  // In order of where they start, as one search would find them.
  return starts.length > 1 ? starts.sort((x, y) => x - y) : starts;
};

/** Short passwords after a password's name (too short to judge by entropy): anchored on the name itself. */
function* passwords(text: string, from: number): Generator<Match> {
  for (const start of passwordNames(text)) {
    const found = passwordAt(text, start, from);
    if (found !== undefined) yield found;
  }
}

/** The password after the password's name starting at `start`, if one is assigned there. */
const passwordAt = (text: string, start: number, from: number): Match | undefined => {
  passwordName.lastIndex = start;
  const named = passwordName.exec(text);
  let s: number;
  let nameEnd: number;
  if (named !== null) {
    s = passwordName.lastIndex;
    nameEnd = start + (named.groups?.name?.length ?? 0);
  } else {
    passwordSpaced.lastIndex = start;
    if (!passwordSpaced.test(text)) return undefined;
    s = passwordSpaced.lastIndex;
    nameEnd = text.slice(start, s).trimEnd().length + start;
  }
  let nameStart = start;
  while (nameStart > 0 && start - nameStart < 40 && /[A-Za-z0-9_.-]/.test(text[nameStart - 1] as string)) nameStart--;
  if (notSecretName.test(text.slice(nameStart, nameEnd))) return undefined;
  // `>` ends an XML element's name (`<password>…`), nothing else; `value=` follows a quoted name (`key="Password" value="…"`).
  const op = named?.groups?.op;
  if (op === ">" && text.charCodeAt(nameStart - 1) !== 60) return undefined;
  if (op !== undefined && (op.charCodeAt(0) | 32) === 118 && !/^["'] $/.test(text.slice(nameEnd, nameEnd + 2))) return undefined;
  if (s < from) return undefined;
  // A quoted value ends at its closing quote (it may hold `&`, `;` or spaces); a bare one at the first of them.
  const quote = text[s - 1];
  let e: number;
  if (quote === '"' || quote === "'" || quote === "`") {
    const close = text.slice(s, s + 129).search(quote === '"' ? /(?<!\\)"|\\"|\n/ : quote === "'" ? /(?<!\\)'|\n/ : /`|\n/);
    if (close < 6) return undefined;
    e = s + close;
  } else {
    passwordValue.lastIndex = s;
    const m = passwordValue.exec(text);
    if (m === null) return undefined;
    e = valueEnd(text, s, s + m[0].length);
  }
  const value = text.slice(s, e);
  if (e - s < 6 || notPassword.test(value) || /^(.)\1*$/.test(value)) return undefined;
  // An identifier, a call or a reference (`getPassword`, `config.db.password`, `process.env.DB_PASSWORD`) is code, not a password.
  if (/^[a-z][a-z.]*$/i.test(value) && !/\d/.test(value)) return undefined;
  if (/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(value)) return undefined;
  // A name with nothing after it but a line break, then another setting (`Password: ⏎ password_hash=…`): no password.
  if (/[\r\n]/.test(text.slice(nameEnd, s)) && /^[A-Za-z_][\w.-]*\s{0,2}(?:=|:)/.test(text.slice(s, s + 64))) return undefined;
  // Without an operator the value must not be a word of prose (`password protected`, `password reset`).
  if (named === null && /^[A-Za-z-]+$/.test(value)) return undefined;
  return { start: s, end: e };
};

/**
 * Values assigned to a name that says they are secret (`token`, `secret`, `password`,
 * `api_key`, `credentials`, `private_key`, ... as in `GITHUB_TOKEN=…`, `"client_secret": "…"`,
 * `password: …`, `--token …`), and credentials after `Authorization: Bearer`, `Basic` or
 * `token`. A value must look random (a digit and letters, high entropy), except a password,
 * which only must not be a placeholder. Names that hold a keyword but no secret (`token_count`,
 * `public_key`, `secret_name`, `max_tokens`) are left alone.
 *
 * @example
 * scan("GITHUB_TOKEN=9f8e7d6c5b4a3210fedcba98", [secretAssignment])[0]?.kind // "secret"
 */
export const secretAssignment: Detector = {
  kind: "secret",
  window: ASSIGNMENT_REACH + 16,
  minLength: 10,
  *find(text, from = 0) {
    const candidates = tokenCandidates(text);
    // An AWS secret access key has no name in a credentials CSV or next to its key id: runs of 40
    // that are one are noted on the way, and reported after the named values.
    let aws: number[] | undefined;
    for (let k = 0; k < candidates.length; k += 2) {
      const s = candidates[k] as number;
      // Inside a run (`-end`) only a known token may start; a value starts a run or follows `=`.
      const end = candidates[k + 1] as number;
      if (end - s === 40 && s >= from && awsSecret(text, s)) (aws ??= []).push(s);
      // A value shorter than 12 is none (`duration_ms=12`): known from its run's end, for free.
      // Most runs follow a character that no name comes before (`.`, `(`, `/`): one table read says so.
      if (s < from || end < 0 || end - s < 12 || !mayFollowName(text.charCodeAt(s - 1))) continue;
      // The name first: most runs have none before them, and that is a few characters to read.
      const named = namedSecret(text, s);
      if (named === NONE || prefixAt(text, s)) continue;
      // A value ends at the next `=` that is not padding (`a=b=c`).
      let stop = end;
      for (let at = s; at < end - 1; at++) if (text.charCodeAt(at) === 61 && text.charCodeAt(at + 1) !== 61) (stop = at), (at = end);
      const e = valueEnd(text, s, stop);
      // A token of a known format is the api_key detector's: one span, one kind, streamed or not.
      // After `Bearer` or `Basic` a value is a credential unless it is a placeholder (`YOUR_TOKEN`);
      // after a name, it must look random.
      if (e - s < 12 || (named === SCHEME ? placeholder(text, s, e) : !randomValue(text, s, e))) continue;
      yield { start: s, end: e };
    }
    if (aws !== undefined) for (const s of aws) yield { start: s, end: s + 40 };
    yield* passwords(text, from);
  },
  partial(text, from = 0) {
    // A named value whose run reaches the end of the text may go on: it is judged whole.
    const last = text.length - 1;
    if (last < from || !isRunChar(text, last)) return undefined;
    const run = runAround(text, last, 8192);
    for (const s of tokenStarts(text, run.start, text.length))
      if (s >= from && !prefixAt(text, s) && namedSecret(text, s) !== NONE) return s;
    return undefined;
  },
};

const pemHeader = /-----BEGIN[ A-Z0-9]{0,24}PRIVATE KEY(?: BLOCK)?-----/y;
const pemFooter = /-----END[ A-Z0-9]{0,24}PRIVATE KEY(?: BLOCK)?-----/y;
/** What a PEM body is made of, its line breaks written as such or escaped (`\n` in JSON), and its headers. */
const pemBody = /[A-Za-z0-9+/=\s\\:,-]*/y;

/** The start of the PEM header whose `PRIVATE KEY` is at `at`, if it is one. */
const headerAt = (text: string, at: number): number | undefined => {
  const lo = Math.max(0, at - 40);
  const found = text.slice(lo, at).lastIndexOf("-----BEGIN");
  if (found === -1) return undefined;
  const start = lo + found;
  pemHeader.lastIndex = start;
  return pemHeader.exec(text) === null ? undefined : start;
};

/**
 * PEM private keys (RSA, EC, DSA, OpenSSH, PGP, PKCS#8, encrypted), from `-----BEGIN` to
 * `-----END … PRIVATE KEY-----`, in text or JSON-escaped (a GCP service account file); one cut
 * short is redacted to the end of its body.
 *
 * @example
 * scan("-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----", [privateKey])[0]?.kind // "secret"
 */
export const privateKey: Detector = {
  kind: "secret",
  window: 48,
  minLength: 30,
  *find(text, from = 0) {
    // "BEGIN", not "PRIVATE KEY" or "-----": a search for a rare first letter is many times faster.
    for (let at = text.indexOf("BEGIN"); at !== -1; at = text.indexOf("BEGIN", at + 5)) {
      const start = at - 5;
      pemHeader.lastIndex = start;
      if (start < from || pemHeader.exec(text) === null) continue;
      const body = pemHeader.lastIndex;
      const footer = text.indexOf("-----END", body);
      let end: number;
      pemFooter.lastIndex = footer;
      if (footer !== -1 && footer - body < 65_536 && pemFooter.exec(text) !== null) end = pemFooter.lastIndex;
      else {
        pemBody.lastIndex = body;
        pemBody.exec(text);
        end = pemBody.lastIndex;
        while (end > body && /\s/.test(text[end - 1] as string)) end--;
      }
      yield { start, end };
      at = Math.max(at, end - 5);
    }
  },
  partial(text, from = 0) {
    // A key whose footer has not arrived yet is held from its header.
    const at = text.lastIndexOf("PRIVATE KEY");
    if (at === -1) return undefined;
    const start = headerAt(text, at);
    if (start === undefined) {
      // `… PRIVATE KEY-----` might be the footer: then the key is whole.
      return undefined;
    }
    return start >= from ? start : undefined;
  },
};

const schemeChar = (c: number): boolean => (c >= 48 && c <= 57) || ((c | 32) >= 97 && (c | 32) <= 122) || c === 43 || c === 46 || c === 45;
// A password may hold `#` and `@` unencoded (`postgres://app:p@ss#1@db`): it ends at the last `@` before the host.
const userinfo = /[A-Za-z][A-Za-z0-9+.-]{0,30}:\/\/(?<user>[^\s:/?#@"'<>]{0,256}):(?<pass>[^\s/?"'<>]{1,256})@/y;

/** The ASCII code units neither a URL's user nor its password may hold: blanks, `/`, `?`, quotes, `<`, `>`. */
const NOT_USERINFO = new Uint8Array(128);
for (const c of "\t\n\v\f\r /?\"'<>") NOT_USERINFO[c.charCodeAt(0)] = 1;
const blank = /\s/;
/**
 * Where the characters a URL's user and password may be made of end, reading back from the at
 * sign at `at` (at most 518 characters): one past the nearest character they may not hold, 0 when
 * the text starts within reach, -1 when there is none within it. `prev` is the at sign before
 * (-1 if none) and `prevStart` what this returned for it: at signs in a row with none of those
 * characters between them (`a@b@c`) are each read back to the one before only, so that the reads
 * cost the length of the text, not 518 characters an at sign.
 */
const userinfoStart = (text: string, at: number, prev: number, prevStart: number): number => {
  const floor = Math.max(0, at - 518);
  const stop = Math.max(floor, prev + 1);
  for (let j = at - 1; j >= stop; j--) {
    const c = text.charCodeAt(j);
    if (c < 128 ? NOT_USERINFO[c] === 1 : blank.test(text[j] as string)) return j + 1;
  }
  // Read down to the at sign before (none of those characters after it): the nearest one before
  // it is the one found for it, if it is still within reach.
  if (prev >= floor && prevStart > floor) return prevStart;
  return floor === 0 ? 0 : -1;
};

/**
 * Passwords in URLs (`https://user:pass@host`, `postgres://app:pass@db/x`, `mongodb+srv://…`),
 * the password only; for GitHub's `https://<token>:x-oauth-basic@github.com`, the token.
 *
 * @example
 * scan("postgres://app:s3cret-Pa55@db:5432/app", [urlCredentials]).map((d) => d.start) // [15]
 */
export const urlCredentials: Detector = {
  kind: "secret",
  window: 132,
  minLength: 8,
  *find(text, from = 0) {
    let prev = -1;
    let prevStart = -1;
    let seen = 0;
    for (let at = text.indexOf("@"); at !== -1; at = text.indexOf("@", at + 1)) {
      // A text of many at signs (a list of addresses) is read back from each only if a `://` is
      // within reach of the rest: searching for one costs less than the reads then, and not
      // before (most texts have few at signs, and their first `://` may be far).
      if (++seen === 256 && text.indexOf("://", Math.max(0, at - 520)) === -1) return;
      // Neither a URL's user nor its password holds a blank, `/`, `?`, a quote, `<` or `>`: read
      // back from the at sign to the first of them, which must be the last slash of its `://`
      // (within 520 characters). Most at signs are in no URL (an address, `@scope/pkg`, a
      // decorator) and a few characters before them say so; a search for `://` through the whole
      // text cost more than these reads.
      const start = userinfoStart(text, at, prev, prevStart);
      prev = at;
      prevStart = start;
      const sep = start - 3;
      if (sep < 0 || !text.startsWith("://", sep) || at - sep > 520) continue;
      // A password may hold `@`: only the last one before the host ends it, and each earlier one
      // is passed over here (a pattern tried from each would read the rest of the password again).
      const nextAt = text.indexOf("@", at + 1);
      if (nextAt !== -1 && nextAt - at <= 256 && !/[\s/?"'<>]/.test(text.slice(at + 1, nextAt))) continue;
      let s = sep;
      while (s > 0 && schemeChar(text.charCodeAt(s - 1)) && sep - s < 30) s--;
      userinfo.lastIndex = s;
      const m = userinfo.exec(text);
      if (m === null || userinfo.lastIndex !== at + 1) continue;
      const user = m.groups?.user ?? "";
      const pass = m.groups?.pass ?? "";
      const passStart = at - pass.length;
      if (pass === "x-oauth-basic") {
        if (user.length > 0 && passStart - 1 - user.length >= from) yield { start: passStart - 1 - user.length, end: passStart - 1 };
        continue;
      }
      // Placeholders and defaults: `${PASS}`, `{password}`, `<password>`, `YOUR_PASSWORD`, `xxxx`, a word
      // like `password`, or the user's own name again (`postgres:postgres@localhost`).
      if (
        /^(?:\$|\{|<|%\()/.test(pass) ||
        /^(.)\1*$/.test(pass) ||
        /^[A-Z_]+$/.test(pass) ||
        notPassword.test(pass) ||
        /^(?:my|your)?(?:password|pwd|secret)$/i.test(pass) ||
        pass === user ||
        pass.length < 4
      )
        continue;
      if (passStart >= from) yield { start: passStart, end: at };
    }
  },
};
