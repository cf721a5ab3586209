import * as v from 'valibot';
import { oauthError } from '../../errors.ts';
import { CLIENT_ASSERTION_PARAMS } from '../client-auth/client-assertion.ts';

const optional = v.optional(v.pipe(v.string(), v.maxLength(8192)));

/** `/tokeninfo` and `/introspect` parameters (spec 4.2, RFC 7662 §2.1); unknown ones are ignored. */
export const IntrospectionBodySchema = v.looseObject({
  token: optional,
  token_type_hint: optional,
  client_id: optional,
  client_secret: optional,
  // private_key_jwt (RFC 7523 §2.2): checked by authenticate-client.ts.
  ...CLIENT_ASSERTION_PARAMS,
});
export const IntrospectionQuerySchema = v.looseObject({
  token: optional,
  token_type_hint: optional,
  /** Spec 4.2 `fields`: `?fields=a,b` keeps only those members of an active answer. */
  fields: v.optional(v.pipe(v.string(), v.maxLength(512))),
});

/** Spec 4.2: `token` may come in the form body or the query. */
export function requireToken(body: { token?: string | undefined }, query: { token?: string | undefined }): string {
  const token = body.token ?? query.token;
  if (!token) throw oauthError(400, 'invalid_request', 'body.token: is required');
  return token;
}

/**
 * Applies spec 4.1's `fields` to an active introspection answer; an unknown name is a 400 naming
 * it (spec 7.2). `active` always stays: it is what the answer means. An inactive answer is only
 * ever `{active: false}` (RFC 7662 §2.2).
 */
export function projectFields(
  view: Record<string, unknown>,
  fields: string | undefined,
  known: readonly string[],
): Record<string, unknown> {
  return view.active === true ? pickFields(view, fields, known, 'active') : view;
}

/** Spec 4.1 `fields=a,b`: only those members (those present), plus `always`; an unknown name is a 400. */
export function pickFields(
  view: Record<string, unknown>,
  fields: string | undefined,
  known: readonly string[],
  always: string,
): Record<string, unknown> {
  if (fields === undefined) return view;
  const names = fields
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
  const unknown = names.find((n) => !known.includes(n));
  if (unknown !== undefined) throw oauthError(400, 'invalid_request', 'query.fields: names an unknown field.');
  const out: Record<string, unknown> = { [always]: view[always] };
  for (const n of names) if (n in view) out[n] = view[n];
  return out;
}
