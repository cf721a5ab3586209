import * as v from 'valibot';
import { oauthError } from '../errors.ts';

const optional = v.optional(v.pipe(v.string(), v.maxLength(8192)));

/** `/tokeninfo` and `/introspect` parameters (spec 4.2, RFC 7662 §2.1); unknown ones are ignored. */
export const IntrospectionBodySchema = v.looseObject({
  token: optional,
  token_type_hint: optional,
  client_id: optional,
  client_secret: optional,
});
export const IntrospectionQuerySchema = v.looseObject({ token: optional, token_type_hint: optional });

/** Spec 4.2: `token` may come in the form body or the query. */
export function requireToken(body: { token?: string | undefined }, query: { token?: string | undefined }): string {
  const token = body.token ?? query.token;
  if (!token) throw oauthError(400, 'invalid_request', 'body.token: required.');
  return token;
}
