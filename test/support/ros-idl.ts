/**
 * A parser for the ROS 2 interface definition files (.msg, .srv, .action) of one package, enough to
 * compare them with their TypeScript mirrors: fields with their types and defaults, constants, and the
 * `---` sections. It follows the rules of rosidl_adapter (the tool colcon runs on these files) and
 * rejects what it would reject, so a typo fails here before it fails on the robot.
 */

/** A field, with its type spelled canonically: `string[<=1]`, `uint8[]`, `Tour`, `other_pkg/Thing[3]`. */
export interface RosField {
  readonly name: string;
  readonly type: string;
  /** The default value as written, when the file gives one. */
  readonly defaultValue?: string;
  readonly line: number;
}

export interface RosConstant {
  readonly name: string;
  readonly type: string;
  /** Numbers and booleans parsed; strings without their quotes. */
  readonly value: number | boolean | string;
  readonly line: number;
}

export interface RosSection {
  readonly fields: readonly RosField[];
  readonly constants: readonly RosConstant[];
}

export class RosIdlError extends Error {
  override readonly name = 'RosIdlError';
  constructor(file: string, line: number, detail: string) {
    super(`${file}:${line}: ${detail}`);
  }
}

const PRIMITIVE_TYPES = new Set([
  'bool',
  'byte',
  'char',
  'float32',
  'float64',
  'int8',
  'uint8',
  'int16',
  'uint16',
  'int32',
  'uint32',
  'int64',
  'uint64',
  'string',
  'wstring',
]);
const INTEGER_TYPES = new Set([
  'byte',
  'char',
  'int8',
  'uint8',
  'int16',
  'uint16',
  'int32',
  'uint32',
  'int64',
  'uint64',
]);

// rosidl_adapter's naming rules: lower snake case fields, upper snake case constants, no "__", no trailing "_".
const FIELD_NAME = /^[a-z](?:[a-z0-9]|_(?!_))*(?<!_)$/;
const CONSTANT_NAME = /^[A-Z](?:[A-Z0-9]|_(?!_))*(?<!_)$/;
const PACKAGE_NAME = /^[a-z](?:[a-z0-9]|_(?!_))*(?<!_)$/;
const MESSAGE_NAME = /^[A-Z][A-Za-z0-9]*$/;
const TYPE =
  /^(?:(?<pkg>[^/\s[\]]+)\/)?(?<base>[^/\s[\]<=]+)(?:<=(?<strBound>\d+))?(?<array>\[(?:<=)?\d*\])?$/;

/** Index of the first `#` outside a quoted string, or -1: string values may contain `#`. */
const commentStart = (line: string): number => {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line.charAt(i);
    if (quote !== undefined) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '#') return i;
  }
  return -1;
};

const unquote = (raw: string): string => {
  const first = raw.charAt(0);
  return (first === '"' || first === "'") && raw.endsWith(first) && raw.length >= 2 ? raw.slice(1, -1) : raw;
};

interface ParseContext {
  readonly file: string;
  readonly packageName: string;
}

const parseType = (
  raw: string,
  ctx: ParseContext,
  line: number,
): { type: string; isPrimitive: boolean; isArray: boolean } => {
  const match = TYPE.exec(raw);
  const groups = match?.groups;
  const base = groups?.['base'];
  if (groups === undefined || base === undefined)
    throw new RosIdlError(ctx.file, line, `invalid type "${raw}"`);
  const pkg = groups['pkg'];
  const strBound = groups['strBound'];
  const array = groups['array'] ?? '';
  const isPrimitive = pkg === undefined && PRIMITIVE_TYPES.has(base);
  if (!isPrimitive) {
    if (!MESSAGE_NAME.test(base)) throw new RosIdlError(ctx.file, line, `unknown type "${base}"`);
    if (pkg !== undefined && !PACKAGE_NAME.test(pkg)) {
      throw new RosIdlError(ctx.file, line, `invalid package name "${pkg}"`);
    }
  }
  if (strBound !== undefined && base !== 'string' && base !== 'wstring') {
    throw new RosIdlError(ctx.file, line, `only strings take an upper bound, not "${base}"`);
  }
  if (/^\[(?:<=)?0+\]$/.test(array) || array === '[<=]') {
    throw new RosIdlError(ctx.file, line, `invalid array bound in "${raw}"`);
  }
  // A type of the package itself may be written with or without its package; compare it without.
  const qualifiedBase = pkg === undefined || pkg === ctx.packageName ? base : `${pkg}/${base}`;
  const bound = strBound === undefined ? '' : `<=${String(Number(strBound))}`;
  const canonicalArray = array.replace(/\d+/, (digits) => String(Number(digits)));
  return { type: `${qualifiedBase}${bound}${canonicalArray}`, isPrimitive, isArray: array !== '' };
};

const parseConstantValue = (
  type: string,
  raw: string,
  ctx: ParseContext,
  line: number,
): number | boolean | string => {
  if (type === 'string' || type === 'wstring') return unquote(raw);
  if (type === 'bool') {
    if (raw === 'true' || raw === '1') return true;
    if (raw === 'false' || raw === '0') return false;
    throw new RosIdlError(ctx.file, line, `invalid bool value "${raw}"`);
  }
  const value = Number(raw);
  if (raw === '' || !Number.isFinite(value) || (INTEGER_TYPES.has(type) && !Number.isInteger(value))) {
    throw new RosIdlError(ctx.file, line, `invalid ${type} value "${raw}"`);
  }
  return value;
};

const parseSection = (lines: readonly { text: string; line: number }[], ctx: ParseContext): RosSection => {
  const fields: RosField[] = [];
  const constants: RosConstant[] = [];
  const names = new Set<string>();
  for (const { text, line } of lines) {
    const typeEnd = text.search(/\s/);
    if (typeEnd === -1) throw new RosIdlError(ctx.file, line, `expected "<type> <name>", got "${text}"`);
    const rawType = text.slice(0, typeEnd);
    const rest = text.slice(typeEnd).trim();
    const { type, isPrimitive, isArray } = parseType(rawType, ctx, line);

    const constant = /^(?<name>[^\s=]+)\s*=\s*(?<value>.*)$/.exec(rest)?.groups;
    if (constant !== undefined) {
      const name = constant['name'] ?? '';
      if (!CONSTANT_NAME.test(name)) throw new RosIdlError(ctx.file, line, `invalid constant name "${name}"`);
      if (!isPrimitive || isArray) {
        throw new RosIdlError(ctx.file, line, `constant ${name} must have a primitive, non-array type`);
      }
      if (names.has(name)) throw new RosIdlError(ctx.file, line, `duplicate name "${name}"`);
      names.add(name);
      constants.push({
        name,
        type,
        value: parseConstantValue(type, (constant['value'] ?? '').trim(), ctx, line),
        line,
      });
      continue;
    }

    const nameEnd = rest.search(/\s/);
    const name = nameEnd === -1 ? rest : rest.slice(0, nameEnd);
    const defaultValue = nameEnd === -1 ? undefined : rest.slice(nameEnd).trim();
    if (!FIELD_NAME.test(name)) throw new RosIdlError(ctx.file, line, `invalid field name "${name}"`);
    if (names.has(name)) throw new RosIdlError(ctx.file, line, `duplicate name "${name}"`);
    if (defaultValue !== undefined && !isPrimitive) {
      throw new RosIdlError(ctx.file, line, `field ${name}: only primitive types take a default value`);
    }
    names.add(name);
    fields.push(defaultValue === undefined ? { name, type, line } : { name, type, defaultValue, line });
  }
  return { fields, constants };
};

/** Splits a file into its `---`-separated sections and parses each. */
export const parseRosInterface = (text: string, ctx: ParseContext): RosSection[] => {
  const sections: { text: string; line: number }[][] = [[]];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    const hash = commentStart(raw);
    const content = (hash === -1 ? raw : raw.slice(0, hash)).trim();
    if (content === '') return;
    if (content === '---') sections.push([]);
    else sections.at(-1)?.push({ text: content, line });
  });
  return sections.map((lines) => parseSection(lines, ctx));
};

export const parseMsg = (text: string, ctx: ParseContext): RosSection => {
  const sections = parseRosInterface(text, ctx);
  const [only] = sections;
  if (sections.length !== 1 || only === undefined) {
    throw new RosIdlError(ctx.file, 1, `a .msg file has no "---" separator, found ${sections.length - 1}`);
  }
  return only;
};

export const parseSrv = (text: string, ctx: ParseContext): { request: RosSection; response: RosSection } => {
  const [request, response, ...extra] = parseRosInterface(text, ctx);
  if (request === undefined || response === undefined || extra.length > 0) {
    throw new RosIdlError(ctx.file, 1, 'a .srv file has exactly one "---" separator');
  }
  return { request, response };
};

/** An action: goal, result and feedback, in this order, separated by exactly two `---` lines. */
export const parseAction = (
  text: string,
  ctx: ParseContext,
): { goal: RosSection; result: RosSection; feedback: RosSection } => {
  const [goal, result, feedback, ...extra] = parseRosInterface(text, ctx);
  if (goal === undefined || result === undefined || feedback === undefined || extra.length > 0) {
    throw new RosIdlError(ctx.file, 1, 'an .action file has exactly two "---" separators');
  }
  return { goal, result, feedback };
};

/** The interface files listed in rosidl_generate_interfaces(...) of a CMakeLists.txt, as written. */
export const rosidlInterfaceFiles = (cmakeText: string): string[] => {
  const call = /rosidl_generate_interfaces\s*\(([^)]*)\)/.exec(cmakeText.replace(/#[^\n]*/g, ''));
  if (call?.[1] === undefined) return [];
  return [...call[1].matchAll(/"?((?:msg|srv|action)\/[A-Za-z0-9_]+\.(?:msg|srv|action))"?/g)].flatMap((m) =>
    m[1] === undefined ? [] : [m[1]],
  );
};

/**
 * What differs between the fields a file declares and the fields a table expects, one line per problem,
 * or an empty list. Order matters: it is the wire layout.
 */
export const describeFieldDrift = (
  declared: readonly Pick<RosField, 'name' | 'type' | 'line'>[],
  expected: Readonly<Record<string, string>>,
): string[] => {
  const problems: string[] = [];
  const expectedEntries = Object.entries(expected);
  const declaredByName = new Map(declared.map((field) => [field.name, field]));
  for (const [name, type] of expectedEntries) {
    const field = declaredByName.get(name);
    if (field === undefined) problems.push(`field "${name}" (${type}) is in the table but not in the file`);
    else if (field.type !== type) {
      problems.push(
        `field "${name}" is ${field.type} in the file (line ${field.line}) but ${type} in the table`,
      );
    }
  }
  for (const field of declared) {
    if (!(field.name in expected)) {
      problems.push(
        `field "${field.name}" (${field.type}, line ${field.line}) is in the file but not in the table`,
      );
    }
  }
  if (problems.length === 0) {
    const declaredOrder = declared.map((field) => field.name).join(', ');
    const expectedOrder = expectedEntries.map(([name]) => name).join(', ');
    if (declaredOrder !== expectedOrder) {
      problems.push(`field order differs: file has [${declaredOrder}], table has [${expectedOrder}]`);
    }
  }
  return problems;
};
