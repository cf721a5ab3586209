import fc from 'fast-check';
import * as v from 'valibot';
import {
  awkwardNumber,
  DUPLICATE,
  deepObject,
  define,
  EXTRA_KEYS,
  hostileString,
  junk,
  nearMissString,
  plainJson,
  RAW,
  withHostileChar,
} from './fuzz-values.ts';

/**
 * fast-check arbitraries derived from a valibot schema (docs/design.md §3.12): the fuzzers send what
 * the handler validates with, not a hand-written copy of it. The walk reads valibot's schema
 * objects (`type`, `pipe`, `entries`, `wrapped`, `item`, `options`, `key`/`value`) and their
 * pipe actions (`min_length`, `max_length`, `regex`, `uuid`, `min_value`...).
 *
 * Each schema gives two arbitraries: `valid` (values the schema accepts: checked with `v.is`, so
 * opaque `check`s are honoured) and `invalid` (near misses with ONE mutation somewhere: a wrong
 * type, a length or bound ±1, hostile characters, an unknown or duplicated key, a missing
 * required key, a huge value). One mutation at a time: junk in every field would stop nearly
 * every request at the first validation issue and never reach the use cases and the store, where
 * the 500s hide.
 *
 * Values the schema cannot know (existing record ids, a value a use-case rule wants) come from
 * `hints`, by path: `resources[]`, `permissions[].resource_id`, or a last segment such as
 * `resource_id` (which matches at any depth).
 */

/** A hint replaces the derived valid values of a field, or reshapes them (`(derived) => ...`). */
export type Hint = fc.Arbitrary<unknown> | ((derived: fc.Arbitrary<unknown>) => fc.Arbitrary<unknown>);

export interface DeriveOptions {
  hints?: Readonly<Record<string, Hint>>;
}

export interface Derived {
  /** Values the schema accepts; undefined when there is none (`v.never`). */
  valid: fc.Arbitrary<unknown> | undefined;
  /** Values with one mutation; most of them are refused, some are near misses it still takes. */
  invalid: fc.Arbitrary<unknown>;
}

/** Mostly valid values (3 in 5), else one mutation; the arbitrary a fuzzer sends. */
export function arbitraryFromSchema(schema: v.GenericSchema, options: DeriveOptions = {}): fc.Arbitrary<unknown> {
  const { valid, invalid } = deriveFromSchema(schema, options);
  return valid ? fc.oneof({ weight: 3, arbitrary: valid }, { weight: 2, arbitrary: invalid }) : invalid;
}

export function deriveFromSchema(schema: v.GenericSchema, options: DeriveOptions = {}): Derived {
  return derive(schema as unknown as Node, '', { hints: options.hints ?? {}, depth: 0 });
}

/** The entries of the object a schema validates, through its pipes (a query schema's parameter names). */
export function entriesOf(schema: v.GenericSchema): Record<string, v.GenericSchema> {
  return (structure(schema as unknown as Node).base.entries ?? {}) as unknown as Record<string, v.GenericSchema>;
}

// ---------------------------------------------------------------------------------------------
// valibot's schema objects, as far as the walk reads them.

interface Item {
  kind: 'schema' | 'validation' | 'transformation' | 'metadata';
  type: string;
  requirement?: unknown;
}
interface Node extends Item {
  kind: 'schema';
  pipe?: readonly Item[];
  entries?: Record<string, Node>;
  rest?: Node;
  wrapped?: Node;
  item?: Node;
  items?: readonly Node[];
  options?: readonly unknown[];
  key?: Node | string;
  value?: Node;
  literal?: unknown;
  getter?: (input: unknown) => Node;
}

interface Context {
  hints: Readonly<Record<string, Hint>>;
  depth: number;
}

const OPTIONAL = new Set(['optional', 'exact_optional', 'nullish', 'undefinedable']);
const OBJECTS = new Set(['object', 'loose_object', 'strict_object', 'object_with_rest']);
/** Schemas that say nothing about the shape: a later schema in the same pipe does. */
const SHAPELESS = new Set(['unknown', 'any', 'custom']);

const is = (schema: unknown) => (x: unknown) => v.is(schema as v.GenericSchema, x);

/**
 * The schema whose shape the input has, and the pipe actions run on it. In `pipe(unknown(),
 * notArray, strictObject(...))` it is the object; a schema after a transformation sees the
 * transformed value, not the input, and is not used.
 */
function structure(node: Node): { base: Node; actions: Item[] } {
  if (!node.pipe) return { base: node, actions: [] };
  let base = structure(node.pipe[0] as Node);
  const actions = [...base.actions];
  let transformed = false;
  for (const item of node.pipe.slice(1)) {
    if (item.kind === 'transformation') transformed = true;
    if (item.kind === 'schema') {
      const inner = structure(item as Node);
      if (!transformed && !SHAPELESS.has(inner.base.type)) base = inner;
      actions.push(...inner.actions);
    } else {
      actions.push(item);
    }
  }
  return { base: base.base, actions };
}

/** The checks of the pipe around a composite (unique keys, byte size...), run on the built value. */
const ownChecks = (node: Node): ((x: unknown) => boolean) | undefined => {
  const items = (node.pipe ?? []).slice(1).filter((i) => i.kind !== 'schema' && i.kind !== 'metadata');
  return items.length ? is(v.pipe(v.any(), ...(items as unknown as [v.GenericValidation]))) : undefined;
};

const requirement = (actions: Item[], type: string) => actions.filter((a) => a.type === type).map((a) => a.requirement);
const minOf = (xs: unknown[]) => (xs.length ? Math.max(...(xs as number[])) : undefined);
const maxOf = (xs: unknown[]) => (xs.length ? Math.min(...(xs as number[])) : undefined);

function hintFor(path: string, ctx: Context): Hint | undefined {
  for (const [key, hint] of Object.entries(ctx.hints)) if (path === key || path.endsWith(`.${key}`)) return hint;
  return undefined;
}

/** Keeps the arbitraries of `candidates` whose samples the schema mostly takes (opaque checks included). */
function probe(candidates: fc.Arbitrary<unknown>[], accepts: (x: unknown) => boolean): fc.Arbitrary<unknown>[] {
  return candidates.filter((c) => fc.sample(c, { numRuns: 20, seed: 1 }).filter(accepts).length >= 5);
}

/** `arb` filtered by `accepts`, refusing at derive time when the schema takes too few of its values. */
function checked(arb: fc.Arbitrary<unknown>, accepts: ((x: unknown) => boolean) | undefined, path: string): fc.Arbitrary<unknown> {
  if (!accepts) return arb;
  if (probe([arb], accepts).length === 0)
    throw new Error(`arbitraryFromSchema: ${path || '(root)'}: the schema's checks refuse most generated values; give a hint for it`);
  return arb.filter(accepts);
}

function derive(node: Node, path: string, ctx: Context): Derived {
  const hint = hintFor(path, ctx);
  let derived: Derived;
  try {
    derived = deriveShape(node, path, ctx);
  } catch (err) {
    // A field whose valid values no generator finds (an IANA zone, a BCP 47 tag checked by Intl)
    // takes them from its hint, and plain wrong values as its mutations.
    if (!hint || typeof hint === 'function') throw err;
    return { valid: hint, invalid: fc.constantFrom(null, true, 0, '', 'x', ' ', [], {}, 'x'.repeat(300)) };
  }
  if (!hint) return derived;
  const fallback = derived.valid ?? fc.constant(undefined);
  return { valid: typeof hint === 'function' ? hint(fallback) : hint, invalid: derived.invalid };
}

/** Leaves hold no hints: their arbitraries (and the probing behind them) are made once per schema object. */
const leaves = new WeakMap<Node, Derived>();
const leaf = (node: Node, make: () => Derived): Derived => {
  let d = leaves.get(node);
  if (!d) leaves.set(node, (d = make()));
  return d;
};

function deriveShape(node: Node, path: string, ctx: Context): Derived {
  const { base, actions } = structure(node);
  if (ctx.depth > 8) return { valid: fc.constant(null).filter(is(node)), invalid: junk };
  const inner = { ...ctx, depth: ctx.depth + 1 };
  switch (base.type) {
    case 'string':
      return leaf(node, () => stringShape(node, actions, path));
    case 'number':
      return leaf(node, () => numberShape(node, actions, path));
    case 'boolean':
      return { valid: fc.boolean(), invalid: fc.oneof(fc.constantFrom('true', 'false', 1, 0, null, [], 'TRUE'), junk) };
    case 'null':
      return { valid: fc.constant(null), invalid: junk };
    case 'undefined':
    case 'never':
      // No value is valid: the key must be absent (an object leaves it out).
      return { valid: undefined, invalid: fc.oneof(junk, plainJson) };
    case 'literal':
      return choiceShape(node, [base.literal], path);
    case 'picklist':
    case 'enum':
      return choiceShape(node, base.options ?? [], path);
    case 'optional':
    case 'exact_optional':
    case 'undefinedable':
    case 'nullable':
    case 'nullish': {
      const w = derive(base.wrapped!, path, inner);
      const nullable = base.type === 'nullable' || base.type === 'nullish';
      const valid = nullable
        ? fc.oneof({ weight: 4, arbitrary: w.valid ?? fc.constant(null) }, { weight: 1, arbitrary: fc.constant(null) })
        : w.valid;
      return { valid: valid && checked(valid, ownChecks(node), path), invalid: w.invalid };
    }
    case 'union':
    case 'variant': {
      const options = (base.options as Node[]).map((o) => derive(o, path, inner));
      const valids = options.flatMap((o) => (o.valid ? [o.valid] : []));
      return {
        valid: valids.length ? checked(fc.oneof(...valids), ownChecks(node), path) : undefined,
        invalid: fc.oneof(...options.map((o) => o.invalid), junk),
      };
    }
    case 'intersect': {
      const first = derive((base.options as Node[])[0]!, path, inner);
      return { valid: first.valid && checked(first.valid, is(node), path), invalid: first.invalid };
    }
    case 'lazy':
      return derive(base.getter!(undefined), path, inner);
    case 'array':
      return arrayShape(node, base, actions, path, inner);
    case 'tuple':
    case 'loose_tuple':
    case 'strict_tuple': {
      const items = (base.items ?? []).map((item, i) => derive(item, `${path}[${i}]`, inner));
      const valid = fc.tuple(...items.map((i) => i.valid ?? fc.constant(undefined)));
      return {
        valid: checked(valid, ownChecks(node), path),
        invalid: fc.oneof(junk, ...items.map((it, i) => valid.chain((t) => it.invalid.map((x) => Object.assign([...t], { [i]: x }))))),
      };
    }
    case 'record':
      return recordShape(node, base, path, inner);
    case 'unknown':
    case 'any':
    case 'custom':
      return { valid: checked(plainJson, base.type === 'custom' ? is(node) : ownChecks(node), path), invalid: junk };
    default:
      if (OBJECTS.has(base.type)) return objectShape(node, base, path, inner);
      throw new Error(`arbitraryFromSchema: ${path || '(root)'}: no generator for valibot's \`${base.type}\`; add one here`);
  }
}

// ---------------------------------------------------------------------------------------------
// Leaves.

/** ISO 8601 timestamps, mostly in the future (expiries), some with an offset. */
const timestamps = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.date({ min: new Date('2030-01-01'), max: new Date('2200-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
  },
  {
    weight: 1,
    arbitrary: fc
      .date({ min: new Date('1970-01-01'), max: new Date('2200-01-01'), noInvalidDate: true })
      .map((d) => d.toISOString().replace('Z', '+00:00')),
  },
);

function stringShape(node: Node, actions: Item[], path: string): Derived {
  const accepts = is(node);
  const min =
    minOf([
      ...requirement(actions, 'min_length'),
      ...requirement(actions, 'length'),
      ...(actions.some((a) => a.type === 'non_empty') ? [1] : []),
    ]) ?? 0;
  const max = maxOf([...requirement(actions, 'max_length'), ...requirement(actions, 'length')]);
  const maxBytes = maxOf(requirement(actions, 'max_bytes'));
  const short = Math.min(max ?? 30, Math.max(min, 30));
  const has = (t: string) => actions.some((a) => a.type === t);

  // What the pipe names, and plain text of several kinds; only when the schema's opaque checks
  // (a URL test, "not blank", a byte count) refuse all of those, the usual shapes of identifiers.
  // `probe` keeps the candidates the schema mostly takes.
  const named: fc.Arbitrary<unknown>[] = [
    ...(has('uuid') ? [fc.uuid({ version: [4, 7] }), fc.uuid()] : []),
    ...(has('email')
      ? [fc.emailAddress(), fc.stringMatching(/^[a-z0-9]{1,12}(\.[a-z0-9+_-]{1,6})?@[a-z0-9]{1,12}\.(com|org|example)$/)]
      : []),
    ...(has('url') ? [fc.webUrl({ withQueryParameters: true })] : []),
    ...(has('iso_timestamp') || has('iso_date_time') ? [timestamps] : []),
    ...(has('iso_date')
      ? [
          fc
            .date({ noInvalidDate: true, min: new Date('1900-01-01'), max: new Date('2200-01-01') })
            .map((d) => d.toISOString().slice(0, 10)),
        ]
      : []),
    ...requirement(actions, 'regex').map((r) =>
      fc.stringMatching(r as RegExp).filter((s) => s.length >= min && s.length <= (max ?? Infinity)),
    ),
  ];
  // Longer text (for checks counting at least 32 bytes, say) is rarer: bodies stay the size clients send.
  const longText = fc.string({ minLength: Math.max(min, 32), maxLength: Math.max(min, 32, Math.min(max ?? 100, 100)) });
  const plain: fc.Arbitrary<unknown>[] = [
    fc.string({ minLength: min, maxLength: short }),
    fc.string({ unit: 'binary', minLength: min, maxLength: Math.min(short, 12) }),
    longText,
  ];
  const weightOf = (a: fc.Arbitrary<unknown>) => (a === longText ? 1 : 4);
  const guesses: fc.Arbitrary<unknown>[] = [
    fc.webUrl({ withQueryParameters: true }),
    fc.uuid().map((u) => `https://${u}.example/api`),
    fc.uuid(),
    timestamps,
  ];
  const firstChoice = probe([...named, ...plain], accepts);
  const fitting = firstChoice.length ? firstChoice : probe(guesses, accepts);
  // The same values padded to the limit with 1- to 4-byte characters: limits on keys count bytes.
  const padded =
    max !== undefined && fitting.length
      ? [
          fc
            .tuple(fc.oneof(...fitting), fc.constantFrom('a', 'é', '€', '😀'))
            .map(([x, c]) => (String(x) + c.repeat(max)).slice(0, max - (c.length - 1))),
        ]
      : [];
  const kept = fitting;
  const long = probe(padded, accepts);
  // Hostile characters the schema still takes go through as valid values, to the use cases and
  // the store; once a refusal is added, the probe drops them and they stay on the invalid side.
  const spiced = fitting.length ? probe([withHostileChar(fc.oneof(...fitting) as fc.Arbitrary<string>)], accepts) : [];

  // At and past the limits, in UTF-16 units and in UTF-8 bytes (limits on keys count bytes).
  const edges = [
    '',
    ' ',
    'x',
    ...(min > 0 ? ['x'.repeat(min - 1), 'x'.repeat(min)] : []),
    ...(max !== undefined
      ? ['x'.repeat(max), 'x'.repeat(max + 1), '€'.repeat(max), '😀'.repeat(Math.floor(max / 2)), '😀'.repeat(Math.floor(max / 2) + 1)]
      : []),
    ...(maxBytes !== undefined
      ? ['é'.repeat(Math.floor(maxBytes / 2)), 'é'.repeat(Math.floor(maxBytes / 2) + 1), `urn:${'€'.repeat(Math.ceil(maxBytes / 3))}`]
      : []),
  ];
  const validEdges = edges.filter(accepts);
  const invalidEdges = edges.filter((e) => !accepts(e));

  const valid = kept.length
    ? fc.oneof(
        { weight: 48, arbitrary: fc.oneof(...kept.map((arbitrary) => ({ weight: weightOf(arbitrary), arbitrary }))).filter(accepts) },
        ...spiced.map((arbitrary) => ({ weight: 12, arbitrary: arbitrary.filter(accepts) })),
        ...long.map((arbitrary) => ({ weight: 1, arbitrary: arbitrary.filter(accepts) })),
        ...(validEdges.length ? [{ weight: 1, arbitrary: fc.constantFrom(...validEdges) }] : []),
      )
    : validEdges.length
      ? fc.constantFrom(...validEdges)
      : undefined;
  if (!valid) throw new Error(`arbitraryFromSchema: ${path || '(root)'}: found no string the schema takes; give a hint for it`);
  const wrongType = fc.constantFrom(null, true, 0, 1.5, [], {}, ['x'], { value: 'x' });
  return {
    valid,
    invalid: fc.oneof(
      { weight: 3, arbitrary: nearMissString(valid as fc.Arbitrary<string>) },
      ...(invalidEdges.length ? [{ weight: 2, arbitrary: fc.constantFrom(...invalidEdges) }] : []),
      { weight: 1, arbitrary: hostileString },
      { weight: 2, arbitrary: wrongType },
      { weight: 1, arbitrary: junk },
    ),
  };
}

function numberShape(node: Node, actions: Item[], path: string): Derived {
  const accepts = is(node);
  const integer = actions.some((a) => a.type === 'integer' || a.type === 'safe_integer');
  const lo = minOf([...requirement(actions, 'min_value'), ...requirement(actions, 'gt_value')]) as number | undefined;
  const hi = maxOf([...requirement(actions, 'max_value'), ...requirement(actions, 'lt_value')]) as number | undefined;
  const range = integer
    ? fc.integer({ min: Math.max(lo ?? -(2 ** 31), Number.MIN_SAFE_INTEGER), max: Math.min(hi ?? 2 ** 31, Number.MAX_SAFE_INTEGER) })
    : fc.double({ min: lo ?? -1e9, max: hi ?? 1e9, noNaN: true, noDefaultInfinity: true });
  const edges = [
    ...(lo !== undefined ? [lo, lo - 1, lo + 0.5] : []),
    ...(hi !== undefined ? [hi, hi + 1, hi - 0.5] : []),
    0,
    -0,
    -1,
    1.5,
    2 ** 53 + 2,
    1e300,
    -1e300,
    5e-324,
    RAW,
  ];
  const validEdges = edges.filter(accepts);
  const valid = fc.oneof(
    { weight: 8, arbitrary: checked(range, accepts, path) },
    ...(validEdges.length ? [{ weight: 1, arbitrary: fc.constantFrom(...validEdges) }] : []),
  );
  return {
    valid,
    invalid: fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...edges.filter((e) => !accepts(e))) },
      { weight: 1, arbitrary: awkwardNumber },
      // The number as a string, as form bodies and sloppy clients send it.
      { weight: 1, arbitrary: range.map(String) },
      { weight: 1, arbitrary: junk },
    ),
  };
}

function choiceShape(node: Node, options: readonly unknown[], path: string): Derived {
  const accepts = is(node);
  const valid = options.length ? fc.constantFrom(...options) : undefined;
  const near = options.flatMap((o) =>
    typeof o === 'string' ? [o.toUpperCase(), `${o} `, o.slice(0, -1), `${o}\u0000`, `${o.normalize('NFD')}\u0301`] : [String(o)],
  );
  const misses = near.filter((x) => !accepts(x));
  if (!valid) throw new Error(`arbitraryFromSchema: ${path || '(root)'}: a choice without options`);
  return {
    valid,
    invalid: fc.oneof(...(misses.length ? [{ weight: 2, arbitrary: fc.constantFrom(...misses) }] : []), { weight: 1, arbitrary: junk }),
  };
}

// ---------------------------------------------------------------------------------------------
// Composites.

function objectShape(node: Node, base: Node, path: string, ctx: Context): Derived {
  const at = (k: string) => (path ? `${path}.${k}` : k);
  const fields = Object.entries(base.entries ?? {}).map(([k, s]) => ({
    key: k,
    schema: s,
    derived: derive(s, at(k), ctx),
    optional: OPTIONAL.has(s.type),
  }));
  const present = fields.filter((f) => f.derived.valid);
  const required = present.filter((f) => !f.optional).map((f) => f.key);
  const record = fc.record(Object.fromEntries(present.map((f) => [f.key, f.derived.valid!])), { requiredKeys: required }) as fc.Arbitrary<
    Record<string, unknown>
  >;
  // A loose object keeps unknown members and a `rest` schema types them: send some.
  const extras =
    base.type === 'loose_object' || base.rest
      ? fc.dictionary(
          fc.string({ minLength: 1, maxLength: 8 }).filter((k) => !Object.hasOwn(base.entries ?? {}, k)),
          base.rest ? (derive(base.rest, at('*'), ctx).valid ?? fc.string()) : fc.string({ maxLength: 12 }),
          { maxKeys: 2 },
        )
      : fc.constant({});
  const valid = checked(
    fc.tuple(record, extras).map(([r, e]) => ({ ...e, ...r })),
    ownChecks(node),
    path,
  );

  const names = fields.map((f) => f.key);
  const set = (key: string, value: fc.Arbitrary<unknown>) =>
    fc.tuple(valid, value).map(([o, x]) => define({ ...(o as Record<string, unknown>) }, key, x));
  const mutations: fc.WeightedArbitrary<unknown>[] = [
    // One field mutated, at whatever depth its own mutation lands.
    ...fields.map((f) => ({ weight: 6, arbitrary: set(f.key, f.derived.invalid) })),
    ...(required.length ? [{ weight: 1, arbitrary: fc.tuple(valid, fc.constantFrom(...required)).map(([o, k]) => omit(o, k)) }] : []),
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          valid,
          fc.oneof(
            fc.constantFrom(...EXTRA_KEYS, ...names.map((n) => `${n}_`), ...names.map((n) => n.toUpperCase())),
            fc.string({ maxLength: 10 }),
          ),
          fc.oneof(junk, ...present.map((f) => f.derived.valid!)),
        )
        .map(([o, k, x]) => define({ ...(o as Record<string, unknown>) }, k, x)),
    },
    // The same member twice (toJsonText writes the prefixed key as a plain repeat).
    ...(present.length
      ? [
          {
            weight: 1,
            arbitrary: fc
              .constantFrom(...present)
              .chain((f) =>
                fc
                  .tuple(valid, fc.oneof(f.derived.valid!, f.derived.invalid))
                  .map(([o, x]) => define({ ...(o as Record<string, unknown>) }, `${DUPLICATE}${f.key}`, x)),
              ),
          },
        ]
      : []),
    {
      weight: 1,
      arbitrary: fc.oneof(
        junk,
        valid.map((o) => [o]),
        fc.constant(null),
      ),
    },
  ];
  return { valid, invalid: fc.oneof(...mutations) };
}

const omit = (o: unknown, key: string) => {
  const { [key]: _dropped, ...rest } = o as Record<string, unknown>;
  return rest;
};

function arrayShape(node: Node, base: Node, actions: Item[], path: string, ctx: Context): Derived {
  const item = derive(base.item!, `${path}[]`, ctx);
  const own = ownChecks(node);
  const min =
    minOf([
      ...requirement(actions, 'min_length'),
      ...requirement(actions, 'length'),
      ...(actions.some((a) => a.type === 'non_empty') ? [1] : []),
    ]) ?? 0;
  const max = maxOf([...requirement(actions, 'max_length'), ...requirement(actions, 'length')]);
  const itemValid = item.valid ?? fc.constant(undefined);
  const usual = fc.array(itemValid, { minLength: min, maxLength: Math.max(min, Math.min(max ?? 3, Math.max(min, 1) + 2)) });
  // Full arrays at the limit when it is small (link ids, metadata entries); long lists of URLs would mostly meet a byte bound first.
  const atMax = max !== undefined && max <= 64 ? [{ weight: 1, arbitrary: fc.array(itemValid, { minLength: max, maxLength: max }) }] : [];
  const valid = item.valid
    ? checked(fc.oneof({ weight: 24, arbitrary: usual }, ...atMax), own, path)
    : max === 0 || min === 0
      ? fc.constant([])
      : undefined;
  const base1 = valid ?? fc.constant([]);
  const oneItem = fc.tuple(base1, item.invalid, fc.nat()).map(([a, x, i]) => {
    const out = [...(a as unknown[])];
    if (out.length === 0) return [x];
    out[i % out.length] = x;
    return out;
  });
  return {
    valid,
    invalid: fc.oneof(
      { weight: 4, arbitrary: oneItem },
      ...(max !== undefined && max <= 200
        ? [{ weight: 1, arbitrary: fc.array(itemValid, { minLength: max + 1, maxLength: max + 1 }) }]
        : []),
      ...(min > 0 ? [{ weight: 1, arbitrary: fc.array(itemValid, { minLength: min - 1, maxLength: min - 1 }) }] : []),
      // Repeats: uniqueness rules.
      { weight: 1, arbitrary: fc.tuple(itemValid, fc.integer({ min: 2, max: 3 })).map(([x, n]) => Array.from({ length: n }, () => x)) },
      {
        weight: 1,
        arbitrary: fc.oneof(
          junk,
          base1.map((a) => ({ ...(a as unknown[]) })),
        ),
      },
    ),
  };
}

function recordShape(node: Node, base: Node, path: string, ctx: Context): Derived {
  const key =
    typeof base.key === 'object'
      ? derive(base.key, `${path}{}`, ctx)
      : { valid: fc.string({ minLength: 1, maxLength: 8 }), invalid: hostileString };
  const value = derive(base.value!, `${path}.*`, ctx);
  const keys = (key.valid ?? fc.string({ minLength: 1, maxLength: 8 })).filter((k): k is string => typeof k === 'string');
  const values = value.valid ?? fc.constant(undefined);
  const valid = checked(fc.dictionary(keys, values, { maxKeys: 4 }), ownChecks(node), path);
  const add = (k: fc.Arbitrary<unknown>, x: fc.Arbitrary<unknown>) =>
    fc.tuple(valid, k, x).map(([o, kk, xx]) => define({ ...(o as Record<string, unknown>) }, String(kk), xx));
  return {
    valid,
    invalid: fc.oneof(
      // Member names and values a map store refuses, and prototype names.
      {
        weight: 2,
        arbitrary: add(fc.oneof(fc.constantFrom('', '__proto__', 'constructor', 'prototype', 'x'.repeat(300)), key.invalid), values),
      },
      { weight: 2, arbitrary: add(keys, fc.oneof(value.invalid, awkwardNumber, fc.integer({ min: 20, max: 60 }).map(deepObject))) },
      {
        weight: 1,
        arbitrary: fc.oneof(
          junk,
          valid.map((o) => [o]),
        ),
      },
    ),
  };
}
