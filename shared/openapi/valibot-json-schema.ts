import { toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';

/** A JSON Schema object, as the document holds it. */
export type JsonSchema = Record<string, unknown>;

/**
 * A valibot schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect), through
 * `@valibot/to-json-schema`, from the LAST schema of each pipe (`typeMode: 'output'`): the field
 * kit's objects are `pipe(unknown(), notArray, strictObject(...))` (shared/management/kit/fields.ts),
 * where the first schema only lets a non-object reach the kit's own message and the last one says
 * what is accepted. What JSON Schema cannot say (custom checks, transforms) is left out rather than
 * failing the document (docs/openapi.md "What is not documented").
 */
export function jsonSchemaOf(schema: v.GenericSchema): JsonSchema {
  const { $schema: _, ...rest } = toJsonSchema(schema, { target: 'draft-2020-12', typeMode: 'output', errorMode: 'ignore' });
  return rest as JsonSchema;
}
