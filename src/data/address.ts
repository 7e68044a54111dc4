/**
 * Which IP addresses the image fetcher may connect to. A URL in a scraped TSV (or a redirect it
 * leads to) must not make cckit talk to the machine itself, the local network or a cloud
 * metadata service, so every address a host resolves to is classified here first.
 */
import * as net from 'net';

export type AddressClass =
  'public' | 'unspecified' | 'loopback' | 'private' | 'cgnat' | 'link-local' | 'unique-local' | 'multicast' | 'broadcast' | 'reserved' | 'invalid';

/** IPv4 ranges that are not the public internet: [first address, prefix length, class]. */
const IPV4_RANGES: readonly [string, number, AddressClass][] = [
  ['0.0.0.0', 8, 'unspecified'], // "this network": 0.0.0.0 reaches the local host on Linux
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'cgnat'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'], // includes the cloud metadata address 169.254.169.254
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'], // IETF protocol assignments
  ['192.0.2.0', 24, 'reserved'], // documentation
  ['192.88.99.0', 24, 'reserved'], // 6to4 relay anycast
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'], // benchmarking
  ['198.51.100.0', 24, 'reserved'], // documentation
  ['203.0.113.0', 24, 'reserved'], // documentation
  ['224.0.0.0', 4, 'multicast'],
  ['255.255.255.255', 32, 'broadcast'], // before 240/4, which contains it
  ['240.0.0.0', 4, 'reserved'],
];

function ipv4Number(address: string): number {
  return address.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

function classifyIpv4(address: string): AddressClass {
  const n = ipv4Number(address);
  for (const [first, bits, kind] of IPV4_RANGES) {
    const size = 2 ** (32 - bits);
    const start = ipv4Number(first);
    if (n >= start && n < start + size) return kind;
  }
  return 'public';
}

/** The 16 bytes of an IPv6 address (zone id dropped; a trailing dotted quad allowed). */
function ipv6Bytes(address: string): number[] | undefined {
  let text = address.split('%')[0]!;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    // a trailing dotted quad is the last two 16-bit groups
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    if ([a, b, c, d].some((x) => x > 255)) return undefined;
    text = text.slice(0, dotted.index) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (s: string) => (s === '' ? [] : s.split(':'));
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 0) return undefined;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...rest];
  const bytes: number[] = [];
  for (const g of all) {
    if (!/^[0-9a-f]{1,4}$/i.test(g)) return undefined;
    const v = parseInt(g, 16);
    bytes.push(v >> 8, v & 0xff);
  }
  return bytes;
}

function startsWith(bytes: readonly number[], prefix: readonly number[]): boolean {
  return prefix.every((b, i) => bytes[i] === b);
}

function classifyIpv6(address: string): AddressClass {
  const b = ipv6Bytes(address);
  if (!b) return 'invalid';
  const embedded = () => b.slice(12).join('.');
  const zeros = (n: number) => b.slice(0, n).every((x) => x === 0);
  if (zeros(16)) return 'unspecified';
  if (zeros(15) && b[15] === 1) return 'loopback';
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) reach an IPv4 address
  if (zeros(10) && b[10] === 0xff && b[11] === 0xff) return classifyIpv4(embedded());
  if (zeros(12)) return classifyIpv4(embedded());
  if (startsWith(b, [0x00, 0x64, 0xff, 0x9b]) && b.slice(4, 12).every((x) => x === 0)) return classifyIpv4(embedded());
  // 6to4 (2002:AABB:CCDD::) carries the IPv4 address in bytes 2–5
  if (b[0] === 0x20 && b[1] === 0x02) {
    const inner = classifyIpv4(b.slice(2, 6).join('.'));
    if (inner !== 'public') return inner;
  }
  if (b[0] === 0xff) return 'multicast';
  if (b[0] === 0xfe && (b[1]! & 0xc0) === 0x80) return 'link-local'; // fe80::/10
  if (b[0] === 0xfe && (b[1]! & 0xc0) === 0xc0) return 'private'; // fec0::/10, deprecated site-local
  if ((b[0]! & 0xfe) === 0xfc) return 'unique-local'; // fc00::/7
  if (startsWith(b, [0x20, 0x01, 0x0d, 0xb8])) return 'reserved'; // documentation
  if (startsWith(b, [0x01, 0x00]) && b.slice(2, 8).every((x) => x === 0)) return 'reserved'; // discard prefix 100::/64
  return 'public';
}

/** The class of an IP address literal (`invalid` when it is not one). */
export function classifyAddress(address: string): AddressClass {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (net.isIPv4(bare)) return classifyIpv4(bare);
  if (net.isIPv6(bare)) return classifyIpv6(bare);
  return 'invalid';
}

/** True when the fetcher may connect to `address` without `allowPrivate`. */
export function isPublicAddress(address: string): boolean {
  return classifyAddress(address) === 'public';
}
