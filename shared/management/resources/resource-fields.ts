import * as v from 'valibot';
import { RESOURCE_LIMITS } from '../../records/resource-record.ts';
import { identifierUrlSchema } from '../../validation/identifier-url.ts';
import { fieldKit, integer } from '../kit/fields.ts';

/**
 * The field rules of Resources and Scopes (spec §2.7, §2.8). The spec gives types only; the bounds
 * here are ours (docs/management-resources.md §2). Every rule fails with a message the pipeline
 * prefixes with the field's path (`body.resource_metadata.token_lifetime: ...`, docs/contract.md §2).
 */

/** Resources and Scopes drop unknown members: a record read with GET can be sent back with PUT (kit/fields.ts). */
export const resourceFields = fieldKit('drop');

const string = () => v.string('must be a string');

/** The bounds live with the record, so the store can check an identifier without importing management. */
export const LIMITS = RESOURCE_LIMITS;

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

export const tokenLifetime = integer(LIMITS.minTokenLifetime, LIMITS.maxTokenLifetime, 'seconds');

/**
 * RFC 6749 §3.3: `scope-token = 1*( %x21 / %x23-5B / %x5D-7E )`: printable ASCII without space,
 * `"` and `\`. Case-sensitive.
 */
export const scopeName = v.pipe(
  string(),
  v.regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, 'must be an RFC 6749 §3.3 scope-token: printable ASCII without spaces, " or \\'),
  v.maxLength(LIMITS.scopeName, `must be at most ${LIMITS.scopeName} characters`),
);
