import type * as v from 'valibot';
import { validate } from '../http/validate.ts';
import type { CollectionSpec } from './collection-spec.ts';
import type { ListParams } from './list-params.ts';
import { listQuerySchema } from './list-query-schema.ts';

/** `event.queryStringParameters` (last value of a repeated name wins there). */
export type QueryParameters = Readonly<Record<string, string | string[] | undefined>> | null | undefined;
/** `event.multiValueQueryStringParameters`: every value of every name. */
export type MultiValueQueryParameters = Readonly<Record<string, readonly string[] | undefined>> | null | undefined;

const schemas = new WeakMap<CollectionSpec, v.GenericSchema<unknown, ListParams>>();

/**
 * Validates a list request's parameters; an invalid one is a 400 `invalid_request` naming it
 * (`query.limit: must be an integer between 1 and 100`). Pass the multi-value map too so a
 * repeated parameter (`limit=5&limit=500`) is refused instead of silently taking the last one.
 */
export function parseListParams(spec: CollectionSpec, query: QueryParameters, multi?: MultiValueQueryParameters): ListParams {
  let schema = schemas.get(spec);
  if (!schema) schemas.set(spec, (schema = listQuerySchema(spec)));
  return validate(schema, mergeRepeated(query, multi), 'query');
}

/** Puts a repeated name's values in as an array, which the schema refuses with a 400. */
export function mergeRepeated(query: QueryParameters, multi: MultiValueQueryParameters): Record<string, unknown> {
  const out: Record<string, unknown> = { ...query };
  for (const [name, values] of Object.entries(multi ?? {})) {
    if (values && values.length > 1) out[name] = [...values];
  }
  return out;
}
