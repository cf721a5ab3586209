import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { ClientPath, CreateClientBody, UpdateClientBody } from '#shared/management/clients/client-body-schemas.ts';
import { ResourcesBody } from '#shared/management/clients/link-body-schemas.ts';
import { PermissionsBody } from '#shared/management/kit/permissions-body.ts';
import { clientIdsBody, scopePath } from '#shared/management/resources/request-params.ts';
import { createResourceBody, updateResourceBody } from '#shared/management/resources/resource-bodies.ts';
import { createScopeBody, updateScopeBody } from '#shared/management/resources/scope-bodies.ts';
import { TokenRequestSchema } from '#shared/oauth/grants/token-grant.ts';
import { IntrospectionBodySchema, IntrospectionQuerySchema } from '#shared/oauth/introspection/introspection-request.ts';
import { RevokeRequestSchema } from '#shared/oauth/revoke-token.ts';
import { arbitraryFromSchema, deriveFromSchema, entriesOf } from './arbitrary-from-schema.ts';
import { HOSTILE_CHARS, toJsonText } from './fuzz-values.ts';

const sample = (arb: fc.Arbitrary<unknown>, n = 400) => fc.sample(arb, { numRuns: n, seed: 42 });
const firstIssue = (schema: v.GenericSchema, x: unknown) => {
  const r = v.safeParse(schema, x, { abortPipeEarly: true });
  return r.success ? undefined : r.issues[0];
};

/** Every kind of schema the walk knows, in one body. */
const Everything = v.pipe(
  v.unknown(),
  v.check((x) => !Array.isArray(x), 'must be a JSON object'),
  v.strictObject({
    name: v.pipe(
      v.string(),
      v.check((s) => s.trim() !== '', 'blank'),
      v.minLength(2),
      v.maxLength(20),
    ),
    code: v.optional(v.pipe(v.string(), v.regex(/^[A-Z]{3}-\d{2}$/))),
    id: v.pipe(v.string(), v.uuid(), v.toLowerCase()),
    email: v.optional(v.pipe(v.string(), v.email())),
    homepage: v.optional(v.pipe(v.string(), v.url())),
    at: v.optional(v.pipe(v.string(), v.isoTimestamp())),
    count: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10)),
    ratio: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(1))),
    flag: v.boolean(),
    kind: v.picklist(['a', 'b']),
    mode: v.optional(v.enum({ On: 'on', Off: 'off' })),
    version: v.optional(v.literal(2)),
    note: v.nullable(v.string()),
    tags: v.pipe(
      v.array(v.pipe(v.string(), v.minLength(1), v.maxLength(8))),
      v.minLength(1),
      v.maxLength(5),
      v.check((a) => new Set(a).size === a.length, 'unique'),
    ),
    extra: v.optional(v.record(v.string(), v.unknown())),
    open: v.optional(v.looseObject({ a: v.optional(v.string()) })),
    either: v.optional(v.union([v.string(), v.number()])),
    shape: v.optional(
      v.variant('t', [v.object({ t: v.literal('circle'), r: v.number() }), v.object({ t: v.literal('square'), side: v.number() })]),
    ),
    pair: v.optional(v.tuple([v.string(), v.number()])),
    frozen: v.optional(v.never()),
  }),
);

describe('arbitraryFromSchema (docs/design.md §3.12: fuzz inputs from the schemas the handlers validate with)', () => {
  it('valid values pass the schema, opaque checks included, and reach every optional field', () => {
    const { valid } = deriveFromSchema(Everything);
    const values = sample(valid!);
    for (const x of values) expect(firstIssue(Everything, x), JSON.stringify(x)).toBeUndefined();
    const seen = new Set(values.flatMap((x) => Object.keys(x as object)));
    for (const key of Object.keys(entriesOf(Everything))) if (key !== 'frozen') expect(seen, key).toContain(key);
    expect(seen).not.toContain('frozen');
  });

  it('invalid values carry one mutation each: wrong types, bounds ±1, unknown, missing and repeated keys, hostile characters', () => {
    const values = sample(deriveFromSchema(Everything).invalid, 1500);
    const refused = values.map((x) => firstIssue(Everything, x)).filter((i) => i !== undefined);
    expect(refused.length).toBeGreaterThan(values.length * 0.6);
    const issues = new Set(refused.map((i) => `${i.path?.map((p) => p.key).join('.') ?? ''}:${i.type}`));
    for (const expected of [
      'name:string',
      'name:min_length',
      'name:max_length',
      'name:check',
      'code:regex',
      'id:uuid',
      'count:integer',
      'count:min_value',
      'count:max_value',
      'flag:boolean',
      'kind:picklist',
      'tags:min_length',
      'tags:max_length',
      'tags:check',
      'tags.0:min_length',
      'frozen:never',
      ':check',
    ]) {
      expect(issues, expected).toContain(expected);
    }
    // An unknown key (strict object) and a missing required one.
    expect(refused.some((i) => i.type === 'strict_object' && i.expected === 'never')).toBe(true);
    expect(refused.some((i) => i.type === 'strict_object' && i.received === 'undefined')).toBe(true);
    const texts = values.map((x) => toJsonText(x));
    expect(texts.some((t) => HOSTILE_CHARS.some((c) => t.includes(JSON.stringify(c).slice(1, -1)) || t.includes(c)))).toBe(true);
    // The same member twice in the JSON text, which JSON.stringify alone cannot write.
    expect(texts.some((t) => /"(\w+)":.*"\1":/.test(t) && t.startsWith('{'))).toBe(true);
  });

  it('every route schema: its valid values pass, most of its near misses are refused', () => {
    const schemas = {
      CreateClientBody,
      UpdateClientBody,
      ClientPath,
      ResourcesBody,
      PermissionsBody,
      createResourceBody,
      updateResourceBody,
      createScopeBody,
      updateScopeBody,
      clientIdsBody,
      scopePath,
      TokenRequestSchema,
      IntrospectionBodySchema,
      IntrospectionQuerySchema,
      RevokeRequestSchema,
    };
    for (const [name, schema] of Object.entries(schemas) as [string, v.GenericSchema][]) {
      const { valid, invalid } = deriveFromSchema(schema);
      for (const x of sample(valid!, 150)) expect(firstIssue(schema, x), `${name}: ${JSON.stringify(x)}`).toBeUndefined();
      const refused = sample(invalid, 300).filter((x) => firstIssue(schema, x) !== undefined).length;
      // Loose and stripping objects take unknown keys, free text takes odd characters: a third at least is refused.
      expect(refused, name).toBeGreaterThan(100);
    }
  });

  it('hints give the valid values of a field by path or last segment, at any depth', () => {
    const ids = fc.constantFrom('019b0000-0000-7000-8000-000000000001', '019b0000-0000-7000-8000-000000000002');
    const { valid } = deriveFromSchema(PermissionsBody, {
      hints: { resource_id: ids, 'scopes[]': fc.constant('019b0000-0000-7000-8000-00000000000a') },
    });
    for (const body of sample(valid!, 100) as { permissions: { resource_id: string; scopes: string[] }[] }[]) {
      for (const p of body.permissions) {
        expect(p.resource_id).toMatch(/^019b0000-0000-7000-8000-00000000000[12]$/);
        expect(new Set(p.scopes)).toEqual(new Set(['019b0000-0000-7000-8000-00000000000a']));
      }
    }
    // A function hint reshapes the derived values.
    const upper = deriveFromSchema(v.object({ name: v.pipe(v.string(), v.minLength(1)) }), {
      hints: { name: (d) => d.map((s) => `X${String(s)}`) },
    });
    for (const x of sample(upper.valid!, 50) as { name: string }[]) expect(x.name.startsWith('X')).toBe(true);
  });

  it('mostly valid values, and a schema whose checks refuse what it can generate is a clear error naming the field', () => {
    const mixed = sample(arbitraryFromSchema(CreateClientBody), 500).filter((x) => firstIssue(CreateClientBody, x) === undefined).length;
    expect(mixed).toBeGreaterThan(250);
    expect(mixed).toBeLessThan(450);
    const impossible = v.object({
      a: v.object({
        b: v.pipe(
          v.string(),
          v.check(() => false, 'never'),
        ),
      }),
    });
    expect(() => deriveFromSchema(impossible)).toThrow(/a\.b: .*give a hint/);
    expect(() => deriveFromSchema(v.object({ d: v.date() }) as v.GenericSchema)).toThrow(/d: no generator for valibot's `date`/);
  });
});
