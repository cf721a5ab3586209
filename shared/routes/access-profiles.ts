import type { Access } from './route.ts';

/** Nothing of the table or KMS: the API's documentation is in the function's bundle. */
export const NO_DATA: Access = { kms: [] };
export const READ: Access = { table: 'read', kms: [] };
export const WRITE: Access = { table: 'readwrite', kms: [] };
/** Signs tokens: unwraps the signing key once per cold start (envelope) or signs with KMS (kms-sign). */
export const SIGN: Access = { table: 'readwrite', kms: ['decrypt', 'sign'] };
/** Lists sign their cursors with the service HMAC key, which is stored wrapped. */
export const LIST: Access = { table: 'read', kms: ['decrypt'] };
/** Introspection: reads, and opens HS256 Resources' secrets (the secret box's data key). */
export const INTROSPECT: Access = { table: 'read', kms: ['decrypt'] };
/** Writes, and opens sealed secrets: an HS256 Resource's signing secret, the hosted pages' keys. */
export const WRITE_DECRYPT: Access = { table: 'readwrite', kms: ['decrypt'] };
/** Reads secrets back (`read:client_keys`) or writes new ones. */
export const SECRETS: Access = { table: 'readwrite', kms: ['decrypt', 'encrypt'] };
