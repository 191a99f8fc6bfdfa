/**
 * Every JSON Schema in schemas/, loaded once into one validator (they refer to each other by $id), and the checks
 * the CLI contract tests share: stdout holds exactly one JSON document on one line, valid against a schema.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import { expect } from 'vitest';

export const SCHEMA_FILES = readdirSync('schemas')
  .filter((f) => f.endsWith('.schema.json'))
  .sort();

// multipleOfPrecision: durations are multiples of 0.001, which binary floats only approximate.
export const ajv = new Ajv({ allErrors: true, strict: false, multipleOfPrecision: 9 });
for (const f of SCHEMA_FILES) ajv.addSchema(JSON.parse(readFileSync(`schemas/${f}`, 'utf8')));

/** The validator of schemas/NAME.schema.json. */
export function schema(name: string): ValidateFunction {
  const v = ajv.getSchema(`https://aorta-probe.invalid/schemas/${name}.schema.json`);
  if (v === undefined) throw new Error(`no schema schemas/${name}.schema.json`);
  return v;
}

export function isValid(name: string, doc: unknown): boolean {
  return schema(name)(doc) as boolean;
}

export function expectValid(name: string, doc: unknown): void {
  const v = schema(name);
  expect(v(doc), JSON.stringify(v.errors)).toBe(true);
}

/** Exactly one JSON document, on one line, on stdout. */
export function onlyJson(out: string): unknown {
  expect(out.endsWith('\n'), 'stdout ends with a newline').toBe(true);
  expect(out.slice(0, -1), 'stdout is one line').not.toContain('\n');
  return JSON.parse(out);
}
