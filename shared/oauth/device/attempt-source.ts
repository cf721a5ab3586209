import { isIPv4, isIPv6 } from 'node:net';

/**
 * What the `/device` page's limit on wrong user codes counts by (RFC 8628 §5.1;
 * docs/browser-flows.md "Device flow"): an IPv4 address by itself, an IPv6 address by its /64
 * (`2001:db8:1:2::/64`). One IPv6 host usually holds a whole /64 and may draw a fresh address from
 * it for every request, so counting per address would not limit it at all. An IPv4-mapped IPv6
 * address (`::ffff:198.51.100.7`, how a dual-stack socket shows an IPv4 peer) is that IPv4
 * address. Anything that is no address (the gateway always gives one) counts as written.
 */
export function attemptSource(sourceIp: string): string {
  const address = sourceIp.replace(/%.*$/, '');
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return sourceIp;
  const groups = ipv6Groups(address);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a dotted IPv4 tail as two groups). */
function ipv6Groups(address: string): number[] {
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  const hex = dotted
    ? `${address.slice(0, dotted.index)}${((+dotted[1]! << 8) | +dotted[2]!).toString(16)}:${((+dotted[3]! << 8) | +dotted[4]!).toString(16)}`
    : address;
  const [head = '', tail] = hex.split('::');
  const parse = (part: string) => (part ? part.split(':').map((g) => Number.parseInt(g, 16)) : []);
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}
