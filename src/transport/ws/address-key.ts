import { isIPv4, isIPv6 } from 'node:net';

/**
 * The key a client is counted under in every per-address limit: an IPv4 address whole, an IPv6 address by
 * its /64 (one subscriber's network: a host given a /64 has 2^64 addresses to rotate through), and an
 * IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, as a dual-stack socket reports an IPv4 client) as its IPv4
 * address. Any text, as uWebSockets.js reports it (IPv6 in full, uncompressed hex) or compressed; what is
 * not an address at all is its own key, cut to 64 characters.
 */
export const addressKey = (address: string): string => {
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return address.slice(0, 64);
  const groups = ipv6Groups(address);
  if (groups === undefined) return address.slice(0, 64);
  const mapped = groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
  if (mapped) {
    const [high = 0, low = 0] = groups.slice(6);
    return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
};

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a dotted IPv4 tail as two groups). */
const ipv6Groups = (address: string): number[] | undefined => {
  let text = address.split('%')[0] ?? '';
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1] !== undefined) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted[1].split('.').map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const first = parse(head);
  if (tail === undefined) return first.length === 8 ? first : undefined;
  const last = parse(tail);
  return [...first, ...new Array<number>(8 - first.length - last.length).fill(0), ...last];
};
