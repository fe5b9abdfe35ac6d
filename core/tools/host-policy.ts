/**
 * Which hosts a tool may reach. Pure: every outbound request (http.fetch, HTTP tools, MCP servers)
 * and the allow-hosts gate use it.
 * Ranges refused: every address a request could use to reach the platform's own network or a
 * cloud metadata service rather than the public internet.
 */

const ipv4Ranges: ReadonlyArray<[string, number, string]> = [
  ["0.0.0.0", 8, "this-network"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "carrier-grade NAT"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local (cloud metadata)"],
  ["172.16.0.0", 12, "private"],
  ["192.168.0.0", 16, "private"],
];

function ipv4ToNumber(ip: string): number | undefined {
  const parts = ip.split(".");
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return undefined;
    const byte = Number(part);
    if (byte > 255) return undefined;
    value = value * 256 + byte;
  }
  return value;
}

/** Eight 16-bit groups of an IPv6 address, or undefined when it is not one. */
function ipv6Groups(ip: string): number[] | undefined {
  let text = ip.replace(/^\[|\]$/g, "").toLowerCase();
  if (!text.includes(":")) return undefined;
  const zone = text.indexOf("%");
  if (zone >= 0) text = text.slice(0, zone);
  // An embedded IPv4 tail (::ffff:127.0.0.1) becomes two groups.
  const lastColon = text.lastIndexOf(":");
  const tail = text.slice(lastColon + 1);
  if (tail.includes(".")) {
    const v4 = ipv4ToNumber(tail);
    if (v4 === undefined) return undefined;
    text = `${text.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const parse = (part: string | undefined) => (part ? part.split(":") : []);
  const head = parse(halves[0]);
  const rest = parse(halves[1]);
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? head.length !== 8 : missing < 0) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...rest];
  if (!groups.every((group) => /^[0-9a-f]{1,4}$/.test(group))) return undefined;
  return groups.map((group) => parseInt(group, 16));
}

export function isIpLiteral(host: string): boolean {
  return ipv4ToNumber(host) !== undefined || ipv6Groups(host) !== undefined;
}

/**
 * Names the non-public range an IP address falls in, or undefined for a public address (or a name).
 * @example
 * forbiddenRangeOf("169.254.169.254"); // "link-local (cloud metadata)"
 */
export function forbiddenRangeOf(ip: string): string | undefined {
  const v4 = ipv4ToNumber(ip);
  if (v4 !== undefined) {
    for (const [base, bits, label] of ipv4Ranges) {
      const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
      if ((v4 & mask) >>> 0 === (ipv4ToNumber(base)! & mask) >>> 0) return label;
    }
    return undefined;
  }
  const groups = ipv6Groups(ip);
  if (!groups) return undefined;
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = groups;
  if (groups.every((group) => group === 0)) return "unspecified";
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0 && g6 === 0 && g7 === 1) return "loopback";
  if ((g0 & 0xfe00) === 0xfc00) return "unique-local";
  if ((g0 & 0xffc0) === 0xfe80) return "link-local";
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d) addresses reach the IPv4 range.
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && (g5 === 0xffff || g5 === 0)) {
    return forbiddenRangeOf(`${g6 >>> 8}.${g6 & 0xff}.${g7 >>> 8}.${g7 & 0xff}`);
  }
  return undefined;
}

/** Why a host name (not an address) is internal, or undefined. */
export function forbiddenNameOf(host: string): string | undefined {
  const name = host.toLowerCase().replace(/\.$/, "");
  if (name === "localhost" || name.endsWith(".localhost")) return "loopback name";
  if (name.endsWith(".local")) return "local network name";
  if (name.endsWith(".internal") || name === "internal") return "internal name";
  if (name === "metadata" || name === "metadata.google.internal") return "cloud metadata name";
  if (!name.includes(".")) return "single-label name";
  return undefined;
}

/**
 * Exact names, or `*.example.com` for the subdomains of example.com (not example.com itself).
 * @example
 * hostMatches("api.github.com", ["*.github.com"]); // true
 */
export function hostMatches(host: string, patterns: readonly string[]): boolean {
  const name = host
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "");
  return patterns.some((raw) => {
    const pattern = raw.toLowerCase().replace(/^\[|\]$/g, "");
    if (pattern.startsWith("*.")) return name.endsWith(pattern.slice(1)) && name.length > pattern.length - 1;
    return name === pattern;
  });
}

/**
 * A refusal says why; `host` is set when the host is acceptable in itself and only missing from
 * the allowlist (configuration errors then say which host to add).
 */
export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string; host?: string };

export interface OutboundOptions {
  /**
   * Lets loopback addresses (127.0.0.0/8, ::1) and the name `localhost` through, for tests whose
   * doubles listen on loopback (`PANTHEON_ALLOW_LOOPBACK_OUTBOUND`). Every other range stays
   * refused, and the host must still be on the allowlist. Off by default.
   */
  allowLoopback?: boolean;
  /**
   * Private hosts the deployment admin opened by name (`PANTHEON_OUTBOUND_PRIVATE_HOSTS`: a
   * self-hosted git server or MCP server on the company network): each exact name, or private
   * address, passes the private-network checks. Loopback, link-local (cloud metadata) and
   * this-network addresses stay refused whatever the list says, and the host must still be on
   * the allowlist.
   */
  privateHosts?: readonly string[];
}

/** Ranges no deployment setting opens: the platform's own host and the cloud metadata service. */
const neverOpened = new Set(["loopback", "link-local (cloud metadata)", "link-local", "this-network", "unspecified"]);

/** Whether `host` is one of the deployment's named private hosts (exact names only, no wildcards). */
function namedPrivate(host: string, privateHosts: readonly string[] | undefined): boolean {
  if (!privateHosts?.length) return false;
  const name = host.toLowerCase().replace(/\.$/, "");
  return privateHosts.some((h) => !h.includes("*") && h.toLowerCase().replace(/^\[|\]$/g, "") === name);
}

/**
 * The checks of an outbound URL before any request: http(s) only, no credentials, no IP literals,
 * no internal names, and the host on the allowlist. Every outbound request of a tool or a
 * connection passes here (http.fetch and its redirects, HTTP tools, MCP servers and their hops).
 * @example
 * checkOutboundUrl("https://api.github.com/zen", ["api.github.com"]); // { ok: true, url }
 * checkOutboundUrl("http://169.254.169.254/", ["169.254.169.254"]); // { ok: false, reason: "169.254.169.254 is in the link-local (cloud metadata) range" }
 */
export function checkOutboundUrl(raw: string, allowHosts: readonly string[], options: OutboundOptions = {}): UrlCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: `'${raw}' is not an absolute URL` };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    return { ok: false, reason: `scheme '${url.protocol}' is not allowed (http and https only)` };
  if (url.username || url.password) return { ok: false, reason: "URLs with credentials are not allowed" };
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIpLiteral(host)) {
    const range = forbiddenRangeOf(host);
    const loopbackAllowed = options.allowLoopback === true && range === "loopback";
    const opened = range !== undefined && !neverOpened.has(range) && namedPrivate(host, options.privateHosts);
    if (!loopbackAllowed && !opened)
      return {
        ok: false,
        reason: range
          ? `${host} is in the ${range} range`
          : `IP address ${host} is not allowed; use a host name on the allowlist`,
      };
  } else {
    const internal = forbiddenNameOf(host);
    const loopbackAllowed = options.allowLoopback === true && host.toLowerCase().replace(/\.$/, "") === "localhost";
    const metadata = /^metadata(\.google\.internal)?\.?$/i.test(host);
    const opened =
      internal !== undefined && internal !== "loopback name" && !metadata && namedPrivate(host, options.privateHosts);
    if (internal && !loopbackAllowed && !opened)
      return { ok: false, reason: `${host} is not a public host (${internal})` };
  }
  if (!hostMatches(host, allowHosts))
    return { ok: false, reason: `host ${host} is not on this agent's allowlist`, host };
  return { ok: true, url };
}
