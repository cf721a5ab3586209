import * as v from 'valibot';
import { badRequest } from '../../errors.ts';
import { safeText } from '../../validation/safe-text.ts';

/**
 * The field kit every management group builds its bodies from (docs/adding-a-management-group.md).
 * The spec gives types only; bounds are each group's (its docs page), and every violation is a 400
 * whose message the pipeline prefixes with the field's path (`body.client_name: ...`, docs/contract.md §2),
 * never a 500 or a silently truncated value.
 *
 * One policy for unknown body fields: REJECT them (`body.is_globl: unknown field`), so a typo never
 * silently keeps a default. A group may declare `'drop'` instead, once, in its field set
 * (`fieldKit('drop')`), when callers are promised that a record read with GET can be sent back with
 * PUT (its `id`, `aggregations`, dates... are then ignored): Resources and their Scopes do, and
 * tests hold them to it (test/management/resources/crud.test.ts). Every object of a group's bodies,
 * nested ones included, follows the group's one policy.
 */
export type UnknownFields = 'reject' | 'drop';

/**
 * The messages of the object issues valibot reports: an unknown key, a missing required key (the
 * only ones with a path when the message is made: the key's), and not an object.
 */
const objectMessage = (issue: v.ObjectIssue | v.StrictObjectIssue): string =>
  issue.expected === 'never' ? 'unknown field' : issue.path?.length ? 'is required' : 'must be a JSON object';

/** valibot's object schemas accept arrays (typeof 'object'); JSON bodies must not pass one as an object. */
export const notArray = v.check<unknown, string>((x) => !Array.isArray(x), 'must be a JSON object');

const string = () => v.string('must be a string');

/**
 * A non-blank string of at most `max` characters (names, types, keys), with docs/contract.md §8's character
 * rules (shared/validation/safe-text.ts: no control or bidi characters, no lone surrogates, not
 * blank once invisible characters are removed).
 */
export const text = (max: number) => v.pipe(string(), safeText(), v.maxLength(max, `must be at most ${max} characters`));

/** Free text that may be empty (`""` clears it), of at most `max` characters: descriptions, values; lines allowed. */
export const optionalText = (max: number) =>
  v.pipe(string(), safeText({ multiline: true, allowEmpty: true }), v.maxLength(max, `must be at most ${max} characters`));

// Ids are stored lower-case (UUIDv7 from shared/store/core/uuidv7.ts): an upper-case spelling names the same record.
export const uuid = v.pipe(v.string('must be a UUID'), v.uuid('must be a UUID'), v.toLowerCase());

export const bool = v.boolean('must be true or false');

/** An integer in [min, max]; `unit` names what it counts in the messages ("seconds"). */
export const integer = (min: number, max: number, unit?: string) => {
  const of = unit ? ` number of ${unit}` : '';
  const range = `must be between ${min} and ${max}${unit ? ` ${unit}` : ''}`;
  return v.pipe(v.number(`must be an integer${of}`), v.integer(`must be an integer${of}`), v.minValue(min, range), v.maxValue(max, range));
};

/** ISO 8601 with a zone (docs/contract.md §2), stored normalised to UTC with milliseconds. */
export const timestamp = v.pipe(
  v.string('must be an ISO 8601 timestamp'),
  v.isoTimestamp('must be an ISO 8601 timestamp with a time zone'),
  // The pattern allows Feb 31, which `Date` would silently turn into Mar 3.
  v.check(isCalendarDate, 'must be a real calendar date'),
  v.transform((s) => new Date(s).toISOString()),
);

function isCalendarDate(s: string): boolean {
  const [y, m, d] = s.slice(0, 10).split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/** docs/contract.md §6: a link change names at most 50 ids and is all-or-nothing. */
export const MAX_LINK_IDS = 50;

/** 1 to 50 ids of `what` (`resource`, `client`, `scope`, later `user`, `role`...). */
export const idList = (what: string, max: number = MAX_LINK_IDS) =>
  v.pipe(
    v.array(uuid, `must be an array of ${what} ids`),
    v.minLength(1, `must hold 1 to ${max} ${what} ids`),
    v.maxLength(max, `must hold 1 to ${max} ${what} ids`),
  );

export const APP_METADATA_LIMITS = { entries: 50, key: 255, value: 1024 } as const;

/**
 * Free JSON is stored as a DynamoDB map, which cannot hold all of JSON: an empty member name is
 * "Empty attribute name", nesting past 32 levels (counted from the item's top attribute) is
 * refused, numbers must lie within ±(2^53 - 1) for the SDK to marshal them exactly and must not
 * fall below 1e-130 in magnitude, member names must be well-formed Unicode. Each was a 500
 * (test/management/clients/fuzz.test.ts);
 * refused here they are a 400 naming the member. 16 levels leave room for where the object sits.
 */
export const OPEN_OBJECT_MAX_DEPTH = 16;

function unstorable(value: unknown, path: string, depth: number): string | undefined {
  const at = path ? `${path}: ` : '';
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || Math.abs(value) > Number.MAX_SAFE_INTEGER)
      return `${at}numbers must be finite and at most ${Number.MAX_SAFE_INTEGER} in magnitude`;
    if (value !== 0 && Math.abs(value) < 1e-130) return `${at}numbers must be 0 or at least 1e-130 in magnitude`;
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  if (depth > OPEN_OBJECT_MAX_DEPTH) return `${at}must nest at most ${OPEN_OBJECT_MAX_DEPTH} levels of objects and arrays`;
  const entries = Array.isArray(value) ? value.map((x, i) => [String(i), x] as const) : Object.entries(value);
  for (const [k, x] of entries) {
    if (!Array.isArray(value) && k === '') return `${at}member names must not be empty`;
    // A lone surrogate has no UTF-8 form: DynamoDB failed such a map key with a 500.
    if (!Array.isArray(value) && !k.isWellFormed()) return `${at}member names must not contain lone surrogates`;
    const problem = unstorable(x, path ? `${path}.${k}` : k, depth + 1);
    if (problem) return problem;
  }
  return undefined;
}

/** Refuses what DynamoDB cannot store (see `unstorable`), naming the member. */
export const storableJsonOf = <T extends object>() =>
  v.rawCheck<T>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const problem = unstorable(dataset.value, '', 1);
    if (problem) addIssue({ message: problem });
  });
export const storableJson = storableJsonOf<Record<string, unknown>>();

/** Whether the serialised value stays within `maxBytes`. */
export const jsonBytesAtMost = <T extends object = Record<string, unknown>>(maxBytes: number) =>
  v.check<T, string>((o) => Buffer.byteLength(JSON.stringify(o)) <= maxBytes, `must be at most ${maxBytes} bytes as JSON`);

/**
 * A free JSON object (spec §2.3's urls/oauth/saml/wsfed: "inner fields not shown"), bounded by its
 * serialised size so one record cannot grow towards DynamoDB's 400 KB item limit, and holding only
 * what DynamoDB can store.
 */
export const freeJson = (maxBytes: number) =>
  v.pipe(v.unknown(), notArray, v.record(v.string(), v.unknown(), 'must be a JSON object'), jsonBytesAtMost(maxBytes), storableJson);

/**
 * PATCH merges a free JSON object into the stored one (objects merge, RFC 7396), so a body within
 * `freeJson`'s bound can still grow the stored value: each merge adds keys. The merged value keeps
 * the same bound, or the request is a 400 naming the field (without it a record would grow with
 * every PATCH until DynamoDB's 400 KB item limit made every write of it a 500, logins included).
 */
export function assertMergedJsonFits(merged: unknown, maxBytes: number, field: string): void {
  if (merged !== undefined && merged !== null && Buffer.byteLength(JSON.stringify(merged)) > maxBytes) {
    throw badRequest(`${field}: would be more than ${maxBytes} bytes as JSON once merged into the stored value.`);
  }
}

/**
 * The object builders of one group, bound to its unknown-field policy. Declared once per group
 * (`const fields = fieldKit('reject')`) and used for every body, path and nested object of it.
 */
export function fieldKit(unknownFields: UnknownFields) {
  /** A JSON object with these members (anything else, arrays included, is `must be a JSON object`). */
  const object = <E extends v.ObjectEntries>(entries: E) =>
    unknownFields === 'reject'
      ? v.pipe(v.unknown(), notArray, v.strictObject(entries, objectMessage))
      : v.pipe(v.unknown(), notArray, v.object(entries, objectMessage));

  /** `app_metadata` (spec §2.2, §2.7): `[{key, value}]`, keys unique, both strings. */
  const appMetadata = v.pipe(
    v.array(
      object({ key: text(APP_METADATA_LIMITS.key), value: optionalText(APP_METADATA_LIMITS.value) }),
      'must be an array of {key, value}',
    ),
    v.maxLength(APP_METADATA_LIMITS.entries, `must hold at most ${APP_METADATA_LIMITS.entries} entries`),
    v.check((a) => new Set(a.map((e) => e.key)).size === a.length, 'keys must be unique'),
  );

  return { unknownFields, object, appMetadata };
}
