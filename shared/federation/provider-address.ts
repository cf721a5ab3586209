import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { ProviderError } from './federation-errors.ts';

/**
 * Where a provider may be: a public address only (docs/federation.md "Reading a provider"). A
 * provider's URLs are configured by a tenant admin or named by a provider's own discovery
 * document, so without this rule the service would fetch from its own network on their behalf
 * (server-side request forgery): the instance metadata service at 169.254.169.254, a VPC
 * endpoint, localhost. Local mode allows loopback, where a test provider listens.
 *
 * The address is checked where the connection is made (the socket's `lookup`), so a name that
 * resolves to a private address is refused even when it changes between two reads (DNS rebinding).
 */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** Not routable on the internet: RFC 6890's special-purpose registries, IPv4 and IPv6. */
const NOT_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private (RFC 1918)
  ['100.64.0.0', 10], // shared address space (RFC 6598)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, the instance metadata service
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  NOT_PUBLIC.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b::', 96], // NAT64: reaches an IPv4 address
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  NOT_PUBLIC.addSubnet(net, prefix, 'ipv6');
}

/**
 * IPv4-mapped IPv6 (`::ffff:a.b.c.d`) is checked as the IPv4 address it maps. No `::ffff:0:0/96`
 * rule above: BlockList matches an IPv4 address against IPv6 rules through that same mapping, so
 * the rule would refuse every IPv4 address.
 */
const MAPPED_V4 = /^::ffff:(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/i;

/** Whether the service may connect to `address` (an IP literal) for a provider. */
export function mayConnectTo(address: string, allowLoopback: boolean): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  const mapped = family === 6 ? MAPPED_V4.exec(address)?.[1] : undefined;
  if (mapped) return mayConnectTo(mapped, allowLoopback);
  if (allowLoopback && LOOPBACK.check(address, type)) return true;
  return !NOT_PUBLIC.check(address, type);
}

const refused = (host: string) =>
  new ProviderError(
    'private_address',
    `The provider host ${host} is not a public address; the service reads providers on the internet only.`,
  );

/** An IP-literal host (`https://10.0.0.1/`) is never looked up: checked before connecting. */
export function checkLiteralHost(hostname: string, allowLoopback: boolean): void {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (isIP(bare) && !mayConnectTo(bare, allowLoopback)) throw refused(hostname);
}

/** The socket's `lookup`: DNS as usual, then every address the name has must be one we may reach. */
export function guardedLookup(allowLoopback: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      if (addresses.length === 0 || addresses.some((a) => !mayConnectTo(a.address, allowLoopback))) {
        return callback(refused(hostname), '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}
