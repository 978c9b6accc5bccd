/**
 * A reader for the JSON5 values found in ZENOH_CONFIG_OVERRIDE (`"client"`, `["tcp/host:7447"]`,
 * `{ client: [...] }`). rmw_zenoh hands each value to Zenoh's JSON5 parser; the bridge only needs to
 * read the same values back to learn the router endpoints, so this covers JSON5's value grammar
 * (strings in either quote, unquoted keys, trailing commas, comments, JSON5 numbers) and nothing more.
 * Input size and nesting depth are bounded so a hostile variable cannot make start-up slow.
 */

export type Json5Value = string | number | boolean | null | Json5Value[] | { [key: string]: Json5Value };

export class Json5SyntaxError extends Error {
  override readonly name = 'Json5SyntaxError';
}

export const JSON5_LIMITS = { maxChars: 16 * 1024, maxDepth: 16 } as const;

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  "'": "'",
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '0': '\0',
};

const NUMBER = /^[+-]?(?:Infinity|NaN|0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)/;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*/;

class Reader {
  private position = 0;

  constructor(private readonly text: string) {}

  fail(expected: string): never {
    const found =
      this.position < this.text.length ? JSON.stringify(this.text.charAt(this.position)) : 'the end';
    throw new Json5SyntaxError(`expected ${expected} at character ${this.position + 1}, found ${found}`);
  }

  /** Skips whitespace and comments. */
  skipBlank(): void {
    for (;;) {
      const rest = this.text.slice(this.position);
      const blank = /^(?:\s+|\/\/[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)/.exec(rest);
      if (blank === null) {
        if (rest.startsWith('/*')) this.fail('the end of a /* comment */');
        return;
      }
      this.position += blank[0].length;
    }
  }

  peek(): string {
    return this.text.charAt(this.position);
  }

  atEnd(): boolean {
    return this.position >= this.text.length;
  }

  value(depth: number): Json5Value {
    if (depth > JSON5_LIMITS.maxDepth) {
      throw new Json5SyntaxError(`nested deeper than ${JSON5_LIMITS.maxDepth} levels`);
    }
    this.skipBlank();
    const next = this.peek();
    if (next === '"' || next === "'") return this.string();
    if (next === '[') return this.array(depth);
    if (next === '{') return this.object(depth);
    const rest = this.text.slice(this.position);
    for (const [word, value] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (rest.startsWith(word) && !/[A-Za-z0-9_$]/.test(rest.charAt(word.length))) {
        this.position += word.length;
        return value;
      }
    }
    const number = NUMBER.exec(rest);
    if (number !== null) {
      this.position += number[0].length;
      const digits = number[0];
      const sign = digits.startsWith('-') ? -1 : 1;
      const unsigned = digits.replace(/^[+-]/, '');
      return sign * (/^0[xX]/.test(unsigned) ? Number.parseInt(unsigned.slice(2), 16) : Number(unsigned));
    }
    return this.fail('a value');
  }

  string(): string {
    const quote = this.peek();
    this.position += 1;
    let out = '';
    for (;;) {
      if (this.atEnd()) this.fail(`a closing ${quote}`);
      const char = this.peek();
      this.position += 1;
      if (char === quote) return out;
      if (char === '\n' || char === '\r') this.fail(`a closing ${quote} before the line ends`);
      if (char !== '\\') {
        out += char;
        continue;
      }
      const escaped = this.peek();
      this.position += 1;
      if (escaped === 'u') {
        const hex = this.text.slice(this.position, this.position + 4);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('four hex digits after \\u');
        out += String.fromCharCode(Number.parseInt(hex, 16));
        this.position += 4;
      } else if (escaped === 'x') {
        const hex = this.text.slice(this.position, this.position + 2);
        if (!/^[0-9a-fA-F]{2}$/.test(hex)) this.fail('two hex digits after \\x');
        out += String.fromCharCode(Number.parseInt(hex, 16));
        this.position += 2;
      } else if (escaped === '\n') {
        // A line continuation: the backslash and the line break vanish.
      } else {
        const simple = SIMPLE_ESCAPES[escaped];
        out += simple ?? escaped;
      }
    }
  }

  array(depth: number): Json5Value[] {
    this.position += 1;
    const items: Json5Value[] = [];
    for (;;) {
      this.skipBlank();
      if (this.peek() === ']') {
        this.position += 1;
        return items;
      }
      items.push(this.value(depth + 1));
      this.skipBlank();
      if (this.peek() === ',') this.position += 1;
      else if (this.peek() !== ']') this.fail('"," or "]"');
    }
  }

  object(depth: number): { [key: string]: Json5Value } {
    this.position += 1;
    const entries: { [key: string]: Json5Value } = {};
    for (;;) {
      this.skipBlank();
      if (this.peek() === '}') {
        this.position += 1;
        return entries;
      }
      let key: string;
      if (this.peek() === '"' || this.peek() === "'") key = this.string();
      else {
        const identifier = IDENTIFIER.exec(this.text.slice(this.position));
        if (identifier === null) return this.fail('a key');
        key = identifier[0];
        this.position += key.length;
      }
      this.skipBlank();
      if (this.peek() !== ':') this.fail('":"');
      this.position += 1;
      // defineProperty: a key named __proto__ must stay data, not replace the prototype.
      Object.defineProperty(entries, key, {
        value: this.value(depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      this.skipBlank();
      if (this.peek() === ',') this.position += 1;
      else if (this.peek() !== '}') this.fail('"," or "}"');
    }
  }
}

/** Parses one JSON5 value (surrounding blanks allowed). Throws Json5SyntaxError naming the position. */
export const parseJson5Value = (text: string): Json5Value => {
  if (text.length > JSON5_LIMITS.maxChars) {
    throw new Json5SyntaxError(`longer than ${JSON5_LIMITS.maxChars} characters`);
  }
  const reader = new Reader(text);
  const value = reader.value(0);
  reader.skipBlank();
  if (!reader.atEnd()) reader.fail('the end of the value');
  return value;
};
