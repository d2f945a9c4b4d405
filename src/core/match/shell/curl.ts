/**
 * curl, which allow lists name with a fixed start (`Bash(curl -s https://api.github.com/*)`) while its
 * later options write files, send files or read options from a file. Read as curl's own parser reads
 * options: long options by any unique prefix (as curl 7 accepts), short letters in clusters, a value
 * letter taking the rest of the word or the next word.
 */
import { operandOnly, type ProgramReading } from "./reading.ts";
import type { Word } from "./script.ts";

const plain = (text: string): Word => ({ text, literal: true, quoted: false });
const unknownPath: Word = { text: "?", literal: false, quoted: false };

/** curl's long options that take a value (from `curl --help all`, 7.88 and 8.x). */
const curlValued = new Set(
  [
    "abstract-unix-socket alt-svc aws-sigv4 cacert capath cert cert-type ciphers config connect-timeout connect-to",
    "continue-at cookie cookie-jar create-file-mode crlfile curves data data-ascii data-binary data-raw data-urlencode",
    "delegation dns-interface dns-ipv4-addr dns-ipv6-addr dns-servers doh-url dump-header ech egd-file engine etag-compare",
    "etag-save expect100-timeout form form-string ftp-account ftp-alternative-to-user ftp-method ftp-port ftp-ssl-ccc-mode",
    "happy-eyeballs-timeout-ms haproxy-clientip header help hostpubmd5 hostpubsha256 hsts interface ip-tos ipfs-gateway json",
    "keepalive-time keepalive-cnt key key-type krb libcurl limit-rate local-port login-options mail-auth mail-from mail-rcpt",
    "max-filesize max-redirs max-time netrc-file noproxy oauth2-bearer output output-dir parallel-max pass pinnedpubkey",
    "preproxy pubkey proto proto-default proto-redir proxy proxy-cacert proxy-capath proxy-cert proxy-cert-type proxy-ciphers",
    "proxy-crlfile proxy-header proxy-key proxy-key-type proxy-pass proxy-pinnedpubkey proxy-service-name proxy-tls13-ciphers",
    "proxy-tlsauthtype proxy-tlspassword proxy-tlsuser proxy-user quote random-file range rate referer request",
    "request-target resolve retry retry-delay retry-max-time sasl-authzid service-name socks4 socks4a socks5 socks5-gssapi-service",
    "socks5-hostname speed-limit speed-time stderr telnet-option tftp-blksize time-cond tls-max tls13-ciphers tlsauthtype",
    "tlspassword tlsuser trace trace-ascii trace-config unix-socket upload-file url url-query user user-agent variable",
    "vlan-priority write-out",
  ]
    .join(" ")
    .split(/\s+/),
);
/** curl's short letters that take a value. */
const curlShortValued = "bcdDeEFhHKmoPQrtTuUwxXYyzC";
const curlShortLong: Readonly<Record<string, string>> = {
  b: "cookie",
  c: "cookie-jar",
  d: "data",
  D: "dump-header",
  e: "referer",
  E: "cert",
  F: "form",
  H: "header",
  K: "config",
  o: "output",
  T: "upload-file",
  w: "write-out",
  O: "remote-name",
  J: "remote-header-name",
  g: "globoff",
};
/** Options that load code or read options from a file: a configuration file can set any option, an engine is a library. */
const curlRuns = new Set(["config", "engine"]);
/** Options whose value is a file curl writes (`-` is standard output). */
const curlWrites = new Set([
  "output",
  "dump-header",
  "cookie-jar",
  "trace",
  "trace-ascii",
  "libcurl",
  "stderr",
  "etag-save",
  "hsts",
  "alt-svc",
]);
/** Flags that make curl write a file named by the server, in the working directory or under `--output-dir`. */
const curlRemoteNames = new Set(["remote-name", "remote-name-all", "remote-header-name"]);
/** curl's long options that take no value (from `curl --help all`, 7.88, and a few of 8.x): any other is not known. */
const curlKnownFlags: ReadonlySet<string> = new Set(
  [
    "anyauth append basic ca-native cert-status compressed compressed-ssh create-dirs crlf digest disable",
    "disable-eprt disable-epsv disallow-username-in-url doh-cert-status doh-insecure fail fail-early",
    "fail-with-body false-start form-escape ftp-create-dirs ftp-pasv ftp-pret ftp-skip-pasv-ip ftp-ssl-ccc",
    "ftp-ssl-control get globoff haproxy-protocol head http2 http2-prior-knowledge http3 http3-only",
    "ignore-content-length include insecure ipv4 ipv6 junk-session-cookies list-only location location-trusted",
    "mail-rcpt-allowfails manual metalink negotiate netrc netrc-optional next no-alpn no-buffer no-clobber",
    "no-keepalive no-npn no-progress-meter no-sessionid ntlm ntlm-wb parallel parallel-immediate path-as-is",
    "post301 post302 post303 preproxy progress-bar proxy proxy-anyauth proxy-basic proxy-ca-native proxy-digest",
    "proxy-insecure proxy-negotiate proxy-ntlm proxy-ssl-allow-beast proxy-ssl-auto-client-cert proxy-tlsv1",
    "proxytunnel raw remote-header-name remote-name remote-name-all remote-time remove-on-error retry",
    "retry-all-errors retry-connrefused sasl-ir show-error silent socks5-basic socks5-gssapi socks5-gssapi-nec ssl",
    "ssl-allow-beast ssl-auto-client-cert ssl-no-revoke ssl-reqd ssl-revoke-best-effort sslv2 sslv3 styled-output",
    "suppress-connect-headers tcp-fastopen tcp-nodelay tftp-no-options tlsv1 tr-encoding trace-time use-ascii",
    "verbose version xattr",
  ]
    .join(" ")
    .split(/\s+/),
);
/** Flags whose names a prefix may also expand to. */
const curlFlags = ["globoff"];

/** Expand a long option as curl does: an exact name, else the one name it is a prefix of (ambiguous: every candidate). */
const curlLong = (name: string): string[] => {
  const all = [...curlValued, ...curlRemoteNames, ...curlFlags];
  if (all.includes(name)) return [name];
  return all.filter((o) => o.startsWith(name));
};

/**
 * curl: `-K`/`--config` (a file of options, which can write or send any file) and `--engine` are opaque;
 * `-o`, `-D`, `-c`, `--trace`, `--libcurl`, `--stderr`, … are files it writes; `-O`/`-J` write what the
 * server names under `--output-dir` (or the working directory); the files it sends (`-T f`, `-d @f`,
 * `-F x=@f`, `--json @f`, …) and the files `file:` URLs name are files it reads; `-w` with `%output{…}` writes
 * where the text says later.
 *
 * @example
 * readCurl(["-s", "-o", "out.json", "https://example.com"].map((text) => ({ text, literal: true, quoted: false }))).writes[0]?.path.text // "out.json"
 */
export const readCurl = (args: readonly Word[]): ProgramReading => {
  const writes: { path: Word; under: boolean }[] = [];
  const reads: Word[] = [];
  let opaque: string | undefined;
  let unknown: string | undefined;
  let outputDir: Word | undefined;
  let remoteNames = false;
  let globoff = false;
  let localDefault = false;
  const outputs: Word[] = [];
  const found = (option: string, value: Word | undefined): void => {
    if (curlRuns.has(option)) opaque ??= `curl --${option} reads options or code from a file`;
    else if (curlWrites.has(option)) {
      if (value === undefined || (value.literal && value.text === "-")) return;
      if (option === "output") outputs.push(value);
      else writes.push({ path: value, under: false });
    } else if (option === "output-dir") outputDir = value;
    else if (option === "url" && value !== undefined) urls.push(value);
    else if (option === "globoff") globoff = true;
    else if (option === "proto-default" && value !== undefined) localDefault = !value.literal || /^file$/i.test(value.text);
    else if (curlRemoteNames.has(option)) remoteNames = true;
    else if (option === "upload-file" || option === "netrc-file" || option === "variable" || option === "etag-compare") {
      if (value !== undefined && value.text !== "-" && value.text !== ".")
        reads.push(option === "variable" ? fileOfVariable(value) : value);
    } else if (/^(?:data|data-ascii|data-binary|data-urlencode|json|form|cookie|header|proxy-header|url-query)$/.test(option)) {
      reads.push(...sentFiles(option, value));
    } else if (option === "write-out" && value !== undefined) {
      if (!value.literal || value.text.startsWith("@") || value.text.includes("%output{"))
        opaque ??= "curl -w writes to a file named in its format, or reads its format from a file";
    }
  };
  let ended = false;
  const urls: Word[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const t = a.text;
    if (!a.literal) {
      if (!ended && !operandOnly(a)) opaque ??= "curl with a word computed at run time, which may be an option that writes a file";
      urls.push(a);
      continue;
    }
    if (ended || !t.startsWith("-") || t === "-") {
      urls.push(a);
      continue;
    }
    if (t === "--") {
      ended = true;
      continue;
    }
    if (t.startsWith("--")) {
      const body = t.slice(2);
      // `--no-x` turns a flag off; curl reads no value after it.
      const names = curlLong(body.replace(/^no-/, ""));
      if (body.startsWith("no-")) continue;
      // An option missing from the table (a newer curl's `--ssl-sessions f` writes a file) may take the
      // next word or write a file: only a rule naming curl alone allows the call.
      if (names.length === 0 && !curlKnownFlags.has(body)) unknown ??= `curl ${t}`;
      if (names.length === 0) continue;
      const takes = names.some((n) => curlValued.has(n));
      const value = takes ? args[++i] : undefined;
      for (const n of names) found(n, value);
      continue;
    }
    const letters = t.slice(1);
    for (let k = 0; k < letters.length; k++) {
      const letter = letters.charAt(k);
      const long = curlShortLong[letter];
      if (!curlShortValued.includes(letter)) {
        if (long !== undefined) found(long, undefined);
        continue;
      }
      const rest = letters.slice(k + 1);
      const value = rest !== "" ? { ...a, text: rest } : args[++i];
      if (long !== undefined) found(long, value);
      break;
    }
  }
  // A `file:` URL (or any URL after `--proto-default file`) reads the file it names, as curl decodes it;
  // curl's own globbing (`[a-z]`, `{a,b}`) makes the name, and an output's `#1`, known only when it runs.
  const globbing = !globoff && urls.some((u) => /[[\]{}]/.test(u.text));
  for (const u of urls) {
    const local = /^file:/i.test(u.text) || (localDefault && !/^[a-z][a-z0-9+.-]*:/i.test(u.text));
    if (!local) continue;
    const path = fileUrlPath(u.text);
    reads.push(path === undefined || !u.literal || (globbing && /[[\]{}]/.test(u.text)) ? unknownPath : { ...u, text: path });
  }
  // With `--output-dir`, `-o` names a file under it; `-O` and `-J` write what the server names.
  for (const o of outputs)
    writes.push({
      path: (outputDir === undefined || o.text.startsWith("/")) && !(globbing && /#\d/.test(o.text)) ? o : unknownPath,
      under: false,
    });
  if (remoteNames) writes.push({ path: outputDir ?? plain("."), under: true });
  return { writes, reads, ...(opaque === undefined ? {} : { opaque }), ...(unknown === undefined ? {} : { unknown }) };
};

/** The path a `file:` URL names, percent-decoded as curl decodes it (`file:///a%2eb`, `file://localhost/x`); a bare path as given. */
const fileUrlPath = (url: string): string | undefined => {
  const rest = /^file:/i.test(url) ? url.slice(5) : url;
  const path = rest.startsWith("//") ? rest.slice(2).replace(/^[^/]*/, "") : rest;
  try {
    return decodeURIComponent(path.replace(/[?#].*$/s, "")) || "/";
  } catch {
    return undefined;
  }
};

/**
 * The files a data or form option sends: `@file` (`name@file` for `--data-urlencode`), and for `-F` the
 * files after `name=@` (a list split by commas, each name quoted or not, each with `;type=…` and the
 * like) or the one after `name=<`, as curl's form parser reads them.
 */
const sentFiles = (option: string, value: Word | undefined): Word[] => {
  if (value === undefined) return [];
  const t = value.text;
  if (option === "form") return formFiles(t).map((file) => (file === undefined ? unknownPath : { ...value, text: file }));
  let file: string | undefined;
  if (option === "data-urlencode") file = /^[^=@]*@(.*)$/s.exec(t)?.[1];
  else if (option !== "cookie" || t.startsWith("@") || !t.includes("="))
    file = t.startsWith("@") ? t.slice(1) : option === "cookie" ? t : undefined;
  if (file === undefined || file === "-" || file === "") return [];
  return [{ ...value, text: file }];
};

/** The files of a `-F name=@a,"b";type=x` or `name=<a` value; `undefined` for one it cannot read (an open quote). */
const formFiles = (t: string): (string | undefined)[] => {
  const m = /^[^=]*=([@<])/.exec(t);
  if (m === null) return [];
  const list = m[1] === "@";
  const files: (string | undefined)[] = [];
  let i = m[0].length;
  // A quoted text from `i` (at its opening quote); `undefined` if unclosed.
  const quoted = (): string | undefined => {
    let out = "";
    for (i++; i < t.length; i++) {
      const ch = t.charAt(i);
      // curl takes a backslash as an escape before a quote or a backslash only.
      if (ch === "\\" && (t.charAt(i + 1) === '"' || t.charAt(i + 1) === "\\")) out += t.charAt(++i);
      else if (ch === '"') {
        i++;
        return out;
      } else out += ch;
    }
    return undefined;
  };
  for (;;) {
    let file: string | undefined;
    if (t.charAt(i) === '"') file = quoted();
    else {
      const end = t.slice(i).search(list ? /[;,]/ : /;/);
      file = end < 0 ? t.slice(i) : t.slice(i, i + end);
      i = end < 0 ? t.length : i + end;
    }
    if (file === undefined) return [...files, undefined];
    if (file !== "-" && file !== "") files.push(file);
    // Parameters (`;type=a/b`, `;filename="x,y"`) up to the next file of the list.
    while (t.charAt(i) === ";") {
      i++;
      while (i < t.length && t.charAt(i) !== ";" && !(list && t.charAt(i) === ",")) {
        if (t.charAt(i) !== '"') i++;
        else if (quoted() === undefined) return [...files, undefined];
      }
    }
    if (!list || t.charAt(i) !== ",") return files;
    i++;
  }
};

/** `--variable name@file` reads the file into a variable. */
const fileOfVariable = (value: Word): Word => {
  const at = /^[^=@]*@(.*)$/s.exec(value.text)?.[1];
  return at === undefined ? { ...value, text: "-" } : { ...value, text: at };
};
