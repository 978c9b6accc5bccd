import * as v from 'valibot';

/** The building blocks of the option table (options.ts): a flag's schema and its spec. */

export const integer = (min: number, max: number) =>
  v.pipe(
    v.string(),
    v.regex(/^\d+$/, `must be a whole number from ${min} to ${max}`),
    v.transform(Number),
    v.number(),
    v.minValue(min, `must be a whole number from ${min} to ${max}`),
    v.maxValue(max, `must be a whole number from ${min} to ${max}`),
  );

/** A decimal such as 0.3 (no sign, no exponent), checked against its range. */
export const decimal = (min: number, max: number) =>
  v.pipe(
    v.string(),
    v.regex(/^\d{1,6}(\.\d{1,6})?$/, `must be a number from ${min} to ${max}, such as 0.3`),
    v.transform(Number),
    v.number(),
    v.minValue(min, `must be a number from ${min} to ${max}, such as 0.3`),
    v.maxValue(max, `must be a number from ${min} to ${max}, such as 0.3`),
  );

export const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  v.picklist(values, `must be one of ${values.join(', ')}`);

export interface OptionSpec {
  readonly flag: string;
  readonly env: string;
  readonly defaultValue: string;
  readonly help: string;
  readonly schema: v.GenericSchema<string, unknown>;
}

export const option = <S extends v.GenericSchema<string, unknown>>(
  flag: string,
  defaultValue: string,
  help: string,
  schema: S,
) => ({ flag, env: `TOUR_BRIDGE_${flag.toUpperCase()}`, defaultValue, help, schema }) as const;
