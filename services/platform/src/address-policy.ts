import { BlockList, isIP } from "node:net";

// Which addresses a URL source may reach. Everything that is not a public unicast address is
// refused: loopback, private (RFC 1918, unique local), link-local (cloud metadata lives there),
// carrier-grade NAT, "this network", multicast and reserved ranges, and IPv6 forms that embed
// one of those IPv4 addresses (mapped, NAT64, 6to4).

const blocked = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  blocked.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
  ["2001:db8::", 32],
  ["100::", 64],
] as const) {
  blocked.addSubnet(network, prefix, "ipv6");
}

/** The IPv4 address an IPv6 address carries (mapped ::ffff:a.b.c.d, NAT64 64:ff9b::, 6to4 2002::), if any. */
function embeddedIpv4(address: string): string | undefined {
  const groups = expandIpv6(address);
  if (!groups) return undefined;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  const zeros = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible, deprecated)
  if (zeros(0, 5) && (groups[5] === 0xffff || groups[5] === 0)) return v4(groups[6] ?? 0, groups[7] ?? 0);
  // 64:ff9b::a.b.c.d and 64:ff9b:1::/48 (NAT64)
  if (groups[0] === 0x64 && groups[1] === 0xff9b) return v4(groups[6] ?? 0, groups[7] ?? 0);
  // 2002:AABB:CCDD::/48 (6to4)
  if (groups[0] === 0x2002) return v4(groups[1] ?? 0, groups[2] ?? 0);
  return undefined;
}

/** The eight 16-bit groups of an IPv6 address, or undefined when it is not one. */
function expandIpv6(address: string): number[] | undefined {
  let text = address.split("%", 1)[0] ?? "";
  if (isIP(text) !== 6) return undefined;
  // A trailing dotted IPv4 part becomes two groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted[1].split(".").map(Number);
    text = `${text.slice(0, -dotted[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((g) => parseInt(g, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const missing = 8 - left.length - right.length;
  if (tail === undefined && missing !== 0) return undefined;
  return [...left, ...new Array<number>(Math.max(0, missing)).fill(0), ...right];
}

/** Whether an IP address (v4 or v6, without brackets) must not be fetched. */
export function isBlockedAddress(address: string): boolean {
  const family = isIP(address.split("%", 1)[0] ?? "");
  if (family === 4) return blocked.check(address, "ipv4");
  if (family === 6) {
    const plain = address.split("%", 1)[0] ?? "";
    if (blocked.check(plain, "ipv6")) return true;
    const v4 = embeddedIpv4(plain);
    return v4 !== undefined && blocked.check(v4, "ipv4");
  }
  // Not an IP address at all: nothing to connect to.
  return true;
}

/** The host of a URL as an IP address, when it is written as one (brackets removed). */
export function literalAddress(hostname: string): string | undefined {
  const host = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  return isIP(host) ? host : undefined;
}

/** Host names that always mean this machine, whatever a resolver says. */
export function isLocalHostname(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  return host === "localhost" || host.endsWith(".localhost");
}

const linkLocalOrUnspecified = new BlockList();
linkLocalOrUnspecified.addSubnet("169.254.0.0", 16, "ipv4");
linkLocalOrUnspecified.addAddress("0.0.0.0", "ipv4");
linkLocalOrUnspecified.addSubnet("fe80::", 10, "ipv6");
linkLocalOrUnspecified.addAddress("::", "ipv6");

/**
 * Whether an address is link-local or unspecified (cloud metadata lives there): refused even
 * where loopback and private addresses are allowed.
 */
export function isLinkLocalOrUnspecified(address: string): boolean {
  const plain = address.split("%", 1)[0] ?? "";
  const family = isIP(plain);
  if (family === 4) return linkLocalOrUnspecified.check(plain, "ipv4");
  if (family === 6) {
    if (linkLocalOrUnspecified.check(plain, "ipv6")) return true;
    const v4 = embeddedIpv4(plain);
    return v4 !== undefined && linkLocalOrUnspecified.check(v4, "ipv4");
  }
  return true;
}
