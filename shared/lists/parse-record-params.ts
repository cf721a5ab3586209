import type * as v from 'valibot';
import { validate } from '../http/validate.ts';
import type { CollectionSpec } from './collection-spec.ts';
import type { RecordParams } from './list-params.ts';
import { recordQuerySchema } from './list-query-schema.ts';
import { type MultiValueQueryParameters, mergeRepeated, type QueryParameters } from './parse-list-params.ts';

const schemas = new WeakMap<CollectionSpec, v.GenericSchema<unknown, RecordParams>>();

/**
 * `fields` and `expand` of a single-record GET/POST/PATCH (spec §4.1), with the same rules and
 * messages as on lists. Apply the result with `shapeItem(spec, record, params)`.
 */
export function parseRecordParams(spec: CollectionSpec, query: QueryParameters, multi?: MultiValueQueryParameters): RecordParams {
  let schema = schemas.get(spec);
  if (!schema) schemas.set(spec, (schema = recordQuerySchema(spec)));
  return validate(schema, mergeRepeated(query, multi), 'query');
}
