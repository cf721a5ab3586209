import type { AttributeType, CollectionSpec } from '../lists/collection-spec.ts';
import type { JsonSchema } from './valibot-json-schema.ts';

const TYPES: Readonly<Record<AttributeType, JsonSchema>> = {
  string: { type: 'string' },
  number: { type: 'number' },
  boolean: { type: 'boolean' },
  timestamp: { type: 'string', format: 'date-time' },
  uuid: { type: 'string', format: 'uuid' },
  object: { type: 'object' },
  array: { type: 'array' },
};

/**
 * A management record as JSON Schema, from its collection's declaration (shared/lists: the
 * attributes a list may project, filter and sort, and the children `expand=all` adds). No member
 * is required: `fields=` keeps only the named ones (docs/contract.md §3). Nothing else may appear, so a view
 * that grows a member its collection does not declare fails the contract test.
 */
export function recordJsonSchema(collection: CollectionSpec): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const [name, { type }] of collection.attributes) {
    const t = TYPES[type] as { type: string; format?: string };
    properties[name] = name === 'id' ? t : { ...t, type: [t.type, 'null'] };
  }
  for (const child of collection.children) {
    // `*_data` is the far end of a link (one record), `null` when it is gone or not visible to the
    // caller (shared/management/kit/linked-data.ts); other children are collections.
    properties[child] = child.endsWith('_data')
      ? {
          type: ['object', 'null'],
          description: 'With `expand=all`: the linked record; `null` when it was deleted or is not visible to the caller.',
        }
      : { type: 'array', items: { type: 'object' }, description: 'With `expand=all`.' };
  }
  return { type: 'object', properties, additionalProperties: false } as JsonSchema;
}

/** The list envelope of docs/contract.md §3 around `items` (a schema or a reference to one). */
export function listJsonSchema(items: JsonSchema): JsonSchema {
  return {
    type: 'object',
    required: ['count', 'has_more', 'limit', 'offset', 'items'],
    properties: {
      total_count: { type: 'integer', minimum: 0, description: 'With `total_count=true`.' },
      count: { type: 'integer', minimum: 0 },
      has_more: { type: 'boolean' },
      limit: { type: 'integer', minimum: 1 },
      offset: { type: 'integer', minimum: 0 },
      items: { type: 'array', items },
      next_cursor: { type: 'string', description: 'When `has_more`: pass as `cursor` for the next page.' },
    },
    additionalProperties: false,
  } as JsonSchema;
}
