import * as v from 'valibot';
import { safeText } from '../../validation/safe-text.ts';

/**
 * Building blocks of the Clients bodies (spec §2.2, §4.3). Spec §8 leaves field lengths open; the
 * bounds here are ours (docs/management-clients.md) and every violation is a 400 naming the field
 * (API.md §2), never a 500 or a silently truncated value.
 */

/**
 * The messages of the three object issues valibot reports: an unknown key, a missing required key
 * (the only ones with a path when the message is made: the key's), and not an object. A missing
 * `client_name` used to read `body.client_name: must be a JSON object`.
 */
export const objectMessage = (issue: v.ObjectIssue | v.StrictObjectIssue): string =>
  issue.expected === 'never' ? 'unknown field' : issue.path?.length ? 'is required' : 'must be a JSON object';

/** valibot's object schemas accept arrays (typeof 'object'); JSON bodies must not pass one as an object. */
export const notArray = v.check<unknown, string>((x) => !Array.isArray(x), 'must be a JSON object');

/** A closed object: unknown fields are a 400 naming them (body.foo: unknown field). */
export const closedObject = <E extends v.ObjectEntries>(entries: E) => v.pipe(v.unknown(), notArray, v.strictObject(entries, objectMessage));

/** A non-blank string of at most `max` characters. */
export const text = (max: number) =>
  v.pipe(
    v.string('must be a string'),
    safeText(),
    v.maxLength(max, `must be at most ${max} characters`),
  );

/** A string that may be empty, of at most `max` characters. */
export const optionalText = (max: number) => v.pipe(v.string('must be a string'), safeText({ multiline: true, allowEmpty: true }), v.maxLength(max, `must be at most ${max} characters`));

// Ids are stored lower-case (UUIDv7 from shared/store/uuidv7.ts): an upper-case spelling names the same record.
export const uuid = v.pipe(v.string('must be a UUID'), v.uuid('must be a UUID'), v.toLowerCase());

export const bool = v.boolean('must be true or false');

/** ISO 8601 with a zone (API.md §2), stored normalised to UTC with milliseconds. */
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

export const integer = (min: number, max: number) =>
  v.pipe(
    v.number('must be an integer'),
    v.integer('must be an integer'),
    v.minValue(min, `must be between ${min} and ${max}`),
    v.maxValue(max, `must be between ${min} and ${max}`),
  );

export const APP_METADATA_LIMITS = { entries: 50, key: 255, value: 1024 } as const;

/** `app_metadata` (spec §2.2): `[{key, value}]`, keys unique, both strings. */
export const appMetadata = v.pipe(
  v.array(
    closedObject({
      key: text(APP_METADATA_LIMITS.key),
      value: optionalText(APP_METADATA_LIMITS.value),
    }),
    'must be an array of {key, value}',
  ),
  v.maxLength(APP_METADATA_LIMITS.entries, `must hold at most ${APP_METADATA_LIMITS.entries} entries`),
  v.check((a) => new Set(a.map((e) => e.key)).size === a.length, 'keys must be unique'),
);

/**
 * Free JSON is stored as a DynamoDB map, which cannot hold all of JSON: an empty member name is
 * "Empty attribute name", nesting past 32 levels (counted from the item's top attribute) is
 * refused, numbers must lie within ±(2^53 - 1) for the SDK to marshal them exactly and must not
 * fall below 1e-130 in magnitude, member names must be well-formed Unicode. Each was a 500 (test/handlers/fuzz-management-clients.test.ts);
 * refused here they are a 400 naming the member. 16 levels leave room for where the object sits.
 */
export const OPEN_OBJECT_MAX_DEPTH = 16;

function unstorable(value: unknown, path: string, depth: number): string | undefined {
  const at = path ? `${path}: ` : '';
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || Math.abs(value) > Number.MAX_SAFE_INTEGER) return `${at}numbers must be finite and at most ${Number.MAX_SAFE_INTEGER} in magnitude`;
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
export const storableJson = v.rawCheck<Record<string, unknown>>(({ dataset, addIssue }) => {
  if (!dataset.typed) return;
  const problem = unstorable(dataset.value, '', 1);
  if (problem) addIssue({ message: problem });
});

/**
 * An open JSON object (spec §2.3's urls/oauth/saml/wsfed: "inner fields not shown"), bounded by
 * its serialised size so one client cannot grow towards DynamoDB's 400 KB item limit, and
 * holding only what DynamoDB can store.
 */
export const openObject = (maxBytes: number) =>
  v.pipe(
    v.unknown(),
    notArray,
    v.record(v.string(), v.unknown(), 'must be a JSON object'),
    v.check((o) => Buffer.byteLength(JSON.stringify(o)) <= maxBytes, `must be at most ${maxBytes} bytes as JSON`),
    storableJson,
  );
