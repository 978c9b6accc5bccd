import { readFileSync } from 'node:fs';

/**
 * The shipped nginx configuration (deploy/nginx/tour-bridge.conf.template): filled in the way the
 * official nginx image and `envsubst` with a variable list do (only the named `${VAR}`s), and read into
 * a tree of directives for the static checks.
 */

export const PROXY_TEMPLATE = 'deploy/nginx/tour-bridge.conf.template';

/** The template's placeholders, in the order its header lists them. */
export const PROXY_PLACEHOLDERS = [
  'TOUR_BRIDGE_TLS_LISTEN',
  'TOUR_BRIDGE_TLS_CERT',
  'TOUR_BRIDGE_TLS_KEY',
  'TOUR_BRIDGE_UPSTREAM',
  'TOUR_BRIDGE_TLS_ACCESS_LOG',
] as const;
export type ProxyPlaceholder = (typeof PROXY_PLACEHOLDERS)[number];

export const readProxyTemplate = (): string =>
  readFileSync(new URL(`../../${PROXY_TEMPLATE}`, import.meta.url), 'utf8');

/** Names of the `${TOUR_BRIDGE_…}` placeholders used in the configuration itself (comments left out). */
export const placeholdersUsed = (template: string): string[] => [
  ...new Set(
    [...stripComments(template).matchAll(/\$\{(TOUR_BRIDGE_[A-Z0-9_]+)\}/g)].map((match) => match[1]!),
  ),
];

/** Fills in every placeholder; a value that is empty or would break the directive it lands in throws. */
export const renderProxyConfig = (template: string, values: Record<ProxyPlaceholder, string>): string => {
  for (const [name, value] of Object.entries(values)) {
    if (!/^[^\s;{}#'"$]+$/.test(value)) throw new Error(`${name}: ${JSON.stringify(value)} cannot go in`);
  }
  const rendered = template.replace(/\$\{(TOUR_BRIDGE_[A-Z0-9_]+)\}/g, (whole, name: string) =>
    (PROXY_PLACEHOLDERS as readonly string[]).includes(name) ? values[name as ProxyPlaceholder] : whole,
  );
  const left = placeholdersUsed(rendered);
  if (left.length > 0) throw new Error(`placeholders left unfilled: ${left.join(', ')}`);
  return rendered;
};

export interface Directive {
  readonly name: string;
  readonly args: readonly string[];
  /** The block's directives, for `map`, `server`, `location` and the like. */
  readonly block?: readonly Directive[];
}

const stripComments = (text: string): string =>
  text
    .split('\n')
    .map((line) => {
      let quote: string | undefined;
      for (let index = 0; index < line.length; index += 1) {
        const char = line[index]!;
        if (quote !== undefined) {
          if (char === '\\') index += 1;
          else if (char === quote) quote = undefined;
        } else if (char === '"' || char === "'") quote = char;
        else if (char === '#') return line.slice(0, index);
      }
      return line;
    })
    .join('\n');

/**
 * nginx's configuration syntax: words (`${name}` inside one is a variable, not a block) and quoted
 * strings, ended by `;` or followed by a `{ }` block.
 */
export const parseNginxConfig = (text: string): Directive[] => {
  const tokens = [
    ...stripComments(text).matchAll(
      /"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([{};])|((?:\$\{\w+\}|[^\s{};"'])+)/g,
    ),
  ].map((match) =>
    match[3] !== undefined ? { punct: match[3] } : { word: match[1] ?? match[2] ?? match[4]! },
  );
  let position = 0;
  const parseBlock = (nested: boolean): Directive[] => {
    const directives: Directive[] = [];
    for (;;) {
      const token = tokens[position];
      if (token === undefined) {
        if (nested) throw new Error('unclosed block');
        return directives;
      }
      if ('punct' in token && token.punct === '}') {
        if (!nested) throw new Error('unexpected }');
        position += 1;
        return directives;
      }
      const words: string[] = [];
      for (;;) {
        const next = tokens[position];
        if (next === undefined) throw new Error(`unterminated directive ${words.join(' ')}`);
        position += 1;
        if ('word' in next) words.push(next.word);
        else if (next.punct === ';') {
          directives.push({ name: words[0] ?? '', args: words.slice(1) });
          break;
        } else if (next.punct === '{') {
          directives.push({ name: words[0] ?? '', args: words.slice(1), block: parseBlock(true) });
          break;
        } else throw new Error(`unexpected } after ${words.join(' ')}`);
      }
    }
  };
  return parseBlock(false);
};

/** The directives named `name` directly in `directives`. */
export const directivesNamed = (directives: readonly Directive[], name: string): Directive[] =>
  directives.filter((directive) => directive.name === name);

/** nginx time (`3600s`, `1h`, `90`, `2m30s`) in seconds. */
export const nginxSeconds = (value: string): number => {
  const units: Record<string, number> = {
    ms: 0.001,
    s: 1,
    m: 60,
    h: 3600,
    d: 86_400,
    w: 604_800,
    M: 2_592_000,
    y: 31_536_000,
  };
  const parts = [...value.matchAll(/(\d+)(ms|s|m|h|d|w|M|y)?/g)];
  if (parts.length === 0 || parts.map((part) => part[0]).join('') !== value)
    throw new Error(`not a time: ${value}`);
  return parts.reduce((sum, part) => sum + Number(part[1]) * units[part[2] ?? 's']!, 0);
};

/** nginx size (`1m`, `512k`, `1048576`) in bytes. */
export const nginxBytes = (value: string): number => {
  const match = /^(\d+)([kKmMgG]?)$/.exec(value);
  if (match === null) throw new Error(`not a size: ${value}`);
  const factor = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[match[2]!.toLowerCase()]!;
  return Number(match[1]) * factor;
};
