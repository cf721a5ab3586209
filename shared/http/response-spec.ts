import type * as v from 'valibot';
import type { CollectionSpec } from '../lists/collection-spec.ts';

/**
 * What a route answers on success, declared in its handler's spec (`httpHandler({ responses })`)
 * so that the OpenAPI document (shared/openapi/openapi-document.ts) is generated, never written:
 * plain data, read only by the generator, so a handler's bundle gains nothing but these objects.
 * Error answers need no declaration: the pipeline renders them all (`{code, message}`, RFC 6749
 * members on OAuth endpoints, an HTML page on hosted pages).
 */
export type ResponseBody =
  /** JSON described by a valibot schema (its output type). */
  | { readonly kind: 'json'; readonly schema: v.GenericSchema; readonly description?: string }
  /** One record of a management collection (its attributes and types, children with `expand=all`). */
  | { readonly kind: 'record'; readonly collection: CollectionSpec }
  /** A list envelope of a management collection (docs/contract.md §3). */
  | { readonly kind: 'list'; readonly collection: CollectionSpec }
  /** No body (204, or 200 with an empty body as at `/revoke`). */
  | { readonly kind: 'empty'; readonly description?: string }
  /** A hosted HTML page. */
  | { readonly kind: 'html'; readonly description?: string }
  /** A redirect (`Location`). */
  | { readonly kind: 'redirect'; readonly description?: string }
  /** A static file of the given media type (the reference page's scripts and styles). */
  | { readonly kind: 'file'; readonly contentTypes: readonly string[] };

/** Success statuses and their bodies. */
export type Responses = Readonly<Partial<Record<number, ResponseBody>>>;

type HasCollection = CollectionSpec | { readonly collection: CollectionSpec };
const collectionOf = (c: HasCollection): CollectionSpec => ('collection' in c ? c.collection : c);

export const json = (schema: v.GenericSchema, description?: string): ResponseBody => ({
  kind: 'json',
  schema,
  ...(description ? { description } : {}),
});
/** A record of a collection, or of an entity's collection (`record(userEntity)`). */
export const record = (of: HasCollection): ResponseBody => ({ kind: 'record', collection: collectionOf(of) });
export const list = (of: HasCollection): ResponseBody => ({ kind: 'list', collection: collectionOf(of) });
export const empty = (description?: string): ResponseBody => ({ kind: 'empty', ...(description ? { description } : {}) });
export const html = (description?: string): ResponseBody => ({ kind: 'html', ...(description ? { description } : {}) });
export const redirect = (description?: string): ResponseBody => ({ kind: 'redirect', ...(description ? { description } : {}) });
export const file = (...contentTypes: string[]): ResponseBody => ({ kind: 'file', contentTypes });

/** `204 No Content`: deletes and link changes (docs/contract.md §6). */
export const NO_CONTENT: Responses = { 204: empty() };
