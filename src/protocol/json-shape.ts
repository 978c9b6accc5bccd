/**
 * The shape a JSON text may have, checked on its bytes before it is parsed: how deep objects and arrays
 * nest, and how many object members it holds in all. `JSON.parse` and the schemas after it cost what the
 * shape costs, not what the size costs: 1 MiB of nested `[` takes about 150 ms to parse, a frame of 7,760
 * keys several milliseconds to parse and copy. This scan costs one pass over the bytes whatever their
 * shape, and stops at the first byte past a limit.
 */
export interface JsonShape {
  /** Objects and arrays inside each other: `{"a":1}` is 1 deep, `{"steps":[{"a":1}]}` is 3. */
  readonly maxDepth: number;
  /** Object members (`"key": value` pairs) in the whole text. */
  readonly maxMembers: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

// What each byte is to the scan; most bytes are none of these, and cost one table lookup.
const OTHER = 0;
const STRING_START = 1;
const OPEN = 2;
const CLOSE = 3;
const MEMBER = 4;
const BYTE_KIND = new Uint8Array(256);
BYTE_KIND[QUOTE] = STRING_START;
BYTE_KIND[0x7b] = OPEN; // {
BYTE_KIND[0x5b] = OPEN; // [
BYTE_KIND[0x7d] = CLOSE; // }
BYTE_KIND[0x5d] = CLOSE; // ]
BYTE_KIND[0x3a] = MEMBER; // :

/** Index of the quote that ends the string whose content starts at `from`, or -1 if it never ends. */
const stringEnd = (bytes: Uint8Array, from: number): number => {
  let at = bytes.indexOf(QUOTE, from);
  while (at !== -1) {
    let backslashes = 0;
    while (at - backslashes - 1 >= from && bytes[at - backslashes - 1] === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return at;
    at = bytes.indexOf(QUOTE, at + 1);
  }
  return -1;
};

/**
 * Why the text's shape is over `shape`, or undefined when it is within it. Only structure outside strings
 * counts (in UTF-8 no byte of a multi-byte character is ASCII, so bytes can be scanned as they are). Text
 * that is not JSON at all is left to the parser to name.
 */
export const jsonShapeProblem = (bytes: Uint8Array, shape: JsonShape): string | undefined => {
  let depth = 0;
  let members = 0;
  for (let at = 0; at < bytes.length; at += 1) {
    const kind = BYTE_KIND[bytes[at] ?? 0];
    if (kind === OTHER) continue;
    if (kind === STRING_START) {
      const end = stringEnd(bytes, at + 1);
      if (end === -1) return undefined;
      at = end;
    } else if (kind === OPEN) {
      depth += 1;
      if (depth > shape.maxDepth) {
        return `objects and arrays nest more than ${shape.maxDepth} deep (at byte ${at})`;
      }
    } else if (kind === CLOSE) {
      depth -= 1;
    } else {
      members += 1;
      if (members > shape.maxMembers) return `more than ${shape.maxMembers} object members`;
    }
  }
  return undefined;
};
