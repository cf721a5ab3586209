import * as v from 'valibot';
import { identifierUrlSchema } from '../../validation/identifier-url.ts';
import { safeText } from '../../validation/safe-text.ts';

/**
 * The field rules of Resources and Scopes (spec §2.7, §2.8). The spec gives types only; the bounds
 * here are ours (docs/management-resources.md §2). Every rule fails with a message the pipeline
 * prefixes with the field's path (`body.resource_metadata.token_lifetime: ...`, API.md §2).
 */

const objectMessage = (issue: v.BaseIssue<unknown>) => (issue.path?.length ? 'is required' : 'must be a JSON object');
const isJsonObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/**
 * A JSON object with these members; unknown members are dropped. A missing required member is
 * `body.resource_name: is required` and anything but an object (arrays too, which valibot's
 * `object` alone would take) is `body: must be a JSON object`.
 */
export const jsonObject = <E extends v.ObjectEntries>(entries: E) =>
  v.pipe(v.custom<Record<string, unknown>>(isJsonObject, 'must be a JSON object'), v.object(entries, objectMessage));

const string = () => v.string('must be a string');

/** A non-blank string of at most `max` characters. */
export const label = (max: number) =>
  v.pipe(string(), safeText(), v.check((s) => s.trim().length > 0, 'must not be empty'), v.maxLength(max, `must be at most ${max} characters`));

/** Free text; `""` clears it on modify (null is not accepted: docs/management-resources.md §2). */
export const description = (max: number) => v.pipe(string(), safeText({ multiline: true, allowEmpty: true }), v.maxLength(max, `must be at most ${max} characters`));

export const bool = () => v.boolean('must be true or false');

export const LIMITS = {
  resourceName: 200,
  resourceType: 64,
  description: 1000,
  /** Also bounds the marker key `UNIQUE#RESOURCE_ID_URL#{t}#{url}` well inside DynamoDB's 2 KB key limit. */
  identifierUrl: 1000,
  /** RFC 7518 §3.2: an HS256 key must be at least as long as the hash output (256 bits). */
  minSecretBytes: 32,
  maxSecretBytes: 1024,
  /** Seconds. One minute to one day; the default (3600) is in shared/store/resource-defaults.ts. */
  minTokenLifetime: 60,
  maxTokenLifetime: 86_400,
  appMetadataEntries: 50,
  appMetadataKey: 255,
  appMetadataValue: 1024,
  scopeName: 255,
  scopeDescription: 500,
} as const;

/** RFC 8707 §2 absolute URI, unique in its RFC 3986 §6.2.2 normal form (shared/validation/identifier-url.ts). */
export const identifierUrl = identifierUrlSchema(LIMITS.identifierUrl);

export const SIGNING_ALGORITHMS = ['ES256', 'RS256', 'HS256'] as const;
export const signingAlgorithm = v.picklist(SIGNING_ALGORITHMS, 'must be ES256, RS256 or HS256');

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
export const signingSecret = v.pipe(
  string(),
  v.check((s) => bytes(s) >= LIMITS.minSecretBytes, `must be at least ${LIMITS.minSecretBytes} bytes (RFC 7518 §3.2)`),
  v.check((s) => bytes(s) <= LIMITS.maxSecretBytes, `must be at most ${LIMITS.maxSecretBytes} bytes`),
);

export const tokenLifetime = v.pipe(
  v.number('must be an integer number of seconds'),
  v.integer('must be an integer number of seconds'),
  v.minValue(LIMITS.minTokenLifetime, `must be between ${LIMITS.minTokenLifetime} and ${LIMITS.maxTokenLifetime} seconds`),
  v.maxValue(LIMITS.maxTokenLifetime, `must be between ${LIMITS.minTokenLifetime} and ${LIMITS.maxTokenLifetime} seconds`),
);

const keyValue = jsonObject({
  key: label(LIMITS.appMetadataKey),
  value: v.pipe(string(), v.maxLength(LIMITS.appMetadataValue, `must be at most ${LIMITS.appMetadataValue} characters`)),
});

/** Spec §2.7 `app_metadata`: `[{key, value}]`, strings, keys unique (a map in list form). */
export const appMetadata = v.pipe(
  v.array(keyValue, 'must be an array of {key, value}'),
  v.maxLength(LIMITS.appMetadataEntries, `must have at most ${LIMITS.appMetadataEntries} entries`),
  v.check((entries) => new Set(entries.map((e) => e.key)).size === entries.length, 'keys must be unique'),
);

/**
 * RFC 6749 §3.3: `scope-token = 1*( %x21 / %x23-5B / %x5D-7E )`: printable ASCII without space,
 * `"` and `\`. Case-sensitive.
 */
export const scopeName = v.pipe(
  string(),
  v.regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, 'must be an RFC 6749 §3.3 scope-token: printable ASCII without spaces, " or \\'),
  v.maxLength(LIMITS.scopeName, `must be at most ${LIMITS.scopeName} characters`),
);

// Ids are stored lower-case (UUIDv7): an upper-case spelling names the same record.
export const uuid = v.pipe(string(), v.uuid('must be a UUID'), v.toLowerCase());
