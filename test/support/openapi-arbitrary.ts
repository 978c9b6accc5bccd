import fc from 'fast-check';

/**
 * fast-check arbitraries from the JSON Schemas of our OpenAPI document: valid values, and values broken
 * in one place (a field dropped, retyped, or added). Covers the JSON Schema subset the document uses.
 */

export interface JsonSchema {
  readonly $ref?: string;
  readonly type?: string;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly items?: JsonSchema;
  readonly maxItems?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly anyOf?: readonly JsonSchema[];
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
}

export type Components = Readonly<Record<string, JsonSchema>>;

// Small sizes keep each case fast; the limits themselves are exercised by the boundary tests.
const SMALL = 12;

const resolve = (schema: JsonSchema, components: Components): JsonSchema => {
  if (schema.$ref === undefined) return schema;
  const name = schema.$ref.replace('#/components/schemas/', '');
  const target = components[name];
  if (target === undefined) throw new Error(`unresolved ${schema.$ref}`);
  return resolve(target, components);
};

const stringArbitrary = (schema: JsonSchema): fc.Arbitrary<string> => {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? SMALL, SMALL));
  const base = fc.string({ unit: 'grapheme-composite', minLength, maxLength });
  if (schema.pattern === undefined) return base;
  const pattern = new RegExp(schema.pattern, 'u');
  // A pattern that excludes a few characters is met by most strings: filtering is cheap. A pattern that
  // shapes the whole string (base64) is generated from, in small sizes.
  if (schema.pattern.startsWith('^\\P{')) return base.filter((text) => pattern.test(text));
  return fc.stringMatching(pattern, { size: 'xsmall' });
};

export const validArbitrary = (schema: JsonSchema, components: Components): fc.Arbitrary<unknown> => {
  const resolved = resolve(schema, components);
  if (resolved.const !== undefined) return fc.constant(resolved.const);
  if (resolved.enum !== undefined) return fc.constantFrom(...resolved.enum);
  if (resolved.anyOf !== undefined)
    return fc.oneof(...resolved.anyOf.map((option) => validArbitrary(option, components)));
  switch (resolved.type) {
    case 'object': {
      const properties = resolved.properties ?? {};
      const required = new Set(resolved.required ?? []);
      const shape: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, property] of Object.entries(properties))
        shape[name] = validArbitrary(property, components);
      return fc.record(shape, {
        requiredKeys: [...required].filter((name) => name in shape),
        noNullPrototype: true,
      });
    }
    case 'array':
      return fc.array(validArbitrary(resolved.items ?? {}, components), {
        maxLength: Math.min(resolved.maxItems ?? SMALL, 4),
      });
    case 'string':
      return stringArbitrary(resolved);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer();
    case 'null':
      return fc.constant(null);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
};

/** A valid object with one defect: a required field removed, a field retyped, or an unknown field added. */
export const brokenArbitrary = (schema: JsonSchema, components: Components): fc.Arbitrary<unknown> => {
  const resolved = resolve(schema, components);
  const required = resolved.required ?? [];
  const names = Object.keys(resolved.properties ?? {});
  return fc
    .tuple(
      validArbitrary(resolved, components),
      fc.constantFrom('drop', 'retype', 'extra'),
      fc.constantFrom(...(names.length > 0 ? names : ['x'])),
      fc.oneof(
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(fc.integer(), { maxLength: 2 }),
        fc.string({ maxLength: 5 }),
      ),
    )
    .map(([value, defect, field, replacement]) => {
      const copy = { ...(value as Record<string, unknown>) };
      if (defect === 'drop' && required.length > 0) {
        const dropped = required[names.indexOf(field) % required.length] ?? field;
        return Object.fromEntries(Object.entries(copy).filter(([name]) => name !== dropped));
      }
      if (defect === 'retype') copy[field] = replacement;
      else copy[`unknown_${field}`] = replacement;
      return copy;
    });
};
