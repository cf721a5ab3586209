/**
 * What a list knows about the records it lists (docs/contract.md §3): their attributes and types, which
 * ones `q` may filter and `sort` may order, the default order, and the child collections that
 * appear only with `expand=all`. One spec per list; the parsers and `listCollection` read nothing
 * else, so adding a list (users, roles, groups...) is one `defineCollection` call.
 */

/** Scalar types are compared by `q` and ordered by `sort` as that type; `object`/`array` only project. */
export type AttributeType = 'string' | 'number' | 'boolean' | 'timestamp' | 'uuid' | 'object' | 'array';

export type SortDirection = 'asc' | 'desc';

export interface SortKey {
  readonly attribute: string;
  readonly direction: SortDirection;
}

export interface AttributeSpec {
  readonly type: AttributeType;
  readonly sortable: boolean;
  readonly filterable: boolean;
}

/** Either a bare type (scalars then sort and filter) or the type with either ability switched off. */
export type AttributeDefinition = AttributeType | { type: AttributeType; sortable?: boolean; filterable?: boolean };

export interface CollectionDefinition {
  /** Names the list in cursors and messages, e.g. `clients`, `client-resources`. */
  name: string;
  attributes: Record<string, AttributeDefinition>;
  /** Child collections present only with `expand=all` (client `resources`, link `resource_data`). */
  children?: readonly string[];
  /** `attr:dir`; default `created_at:asc` (docs/contract.md §3). */
  defaultSort?: string;
  /**
   * Attributes whose ascending order IS the store's key order (GSI1SK = UUIDv7 id, so `id` and the
   * creation timestamp). A sort on one of them alone can page the index directly (the fast path).
   * Default: `id` and the default sort's attribute.
   */
  keyOrder?: readonly string[];
}

export interface CollectionSpec {
  readonly name: string;
  /** A Map, not an object: `fields=constructor` must be an unknown name, not a prototype hit. */
  readonly attributes: ReadonlyMap<string, AttributeSpec>;
  readonly children: ReadonlySet<string>;
  readonly defaultSort: readonly SortKey[];
  readonly keyOrder: ReadonlySet<string>;
}

const SCALAR: ReadonlySet<AttributeType> = new Set(['string', 'number', 'boolean', 'timestamp', 'uuid']);

/** Builds a spec; a mistake in a definition is a programming error and throws at module load. */
export function defineCollection(def: CollectionDefinition): CollectionSpec {
  const attributes = new Map<string, AttributeSpec>();
  for (const [name, d] of Object.entries(def.attributes)) {
    const type = typeof d === 'string' ? d : d.type;
    const scalar = SCALAR.has(type);
    const opts: { sortable?: boolean; filterable?: boolean } = typeof d === 'string' ? {} : d;
    if (!scalar && (opts.sortable || opts.filterable)) throw new Error(`${def.name}.${name}: ${type} attributes cannot sort or filter`);
    attributes.set(name, { type, sortable: scalar && opts.sortable !== false, filterable: scalar && opts.filterable !== false });
  }
  if (attributes.get('id')?.type !== 'uuid') throw new Error(`${def.name}: needs an id attribute of type uuid (ties are broken by id)`);
  const children = new Set(def.children ?? []);
  for (const c of children) if (attributes.has(c)) throw new Error(`${def.name}.${c}: both an attribute and a child`);

  const [attribute = '', direction = 'asc'] = (def.defaultSort ?? 'created_at:asc').split(':');
  if (!attributes.get(attribute)?.sortable) throw new Error(`${def.name}: default sort on unknown or unsortable ${attribute}`);
  if (direction !== 'asc' && direction !== 'desc') throw new Error(`${def.name}: bad default sort direction ${direction}`);

  const keyOrder = new Set(def.keyOrder ?? ['id', attribute]);
  for (const k of keyOrder) if (!attributes.get(k)?.sortable) throw new Error(`${def.name}: key order on unknown ${k}`);

  const defaultSort: SortKey[] = [{ attribute, direction }];
  return Object.freeze({ name: def.name, attributes, children, defaultSort, keyOrder });
}

/** Every name `fields` accepts: the attributes and the children. */
export function isFieldName(spec: CollectionSpec, name: string): boolean {
  return spec.attributes.has(name) || spec.children.has(name);
}
