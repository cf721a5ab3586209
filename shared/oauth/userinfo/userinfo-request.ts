import * as v from 'valibot';
import { badRequest } from '../../errors.ts';
import { authorizationToken, type TokenScheme } from '../dpop/resource-dpop.ts';

/** RFC 6750 §2.2: a POST may carry the token as the form parameter `access_token`; other parameters are ignored. */
export const UserinfoBodySchema = v.looseObject({
  access_token: v.optional(v.pipe(v.string(), v.maxLength(8192))),
});
/** Spec 4.2 Get user info: `fields` (optional) keeps only the named claims. */
export const UserinfoQuerySchema = v.looseObject({
  fields: v.optional(v.pipe(v.string(), v.maxLength(512))),
});

const FORM = /^application\/x-www-form-urlencoded\s*(;|$)/i;

/**
 * The presented access token and its scheme: `Authorization: Bearer` (RFC 6750 §2.1) or `DPoP`
 * (RFC 9449 §7.1) or, on a POST with a form body, `access_token` (RFC 6750 §2.2, a Bearer use).
 * Both at once is 400 (§2: "MUST NOT use more than one method"). A token in the query (§2.3) is
 * not accepted: URLs end up in logs and histories.
 */
export function presentedToken(
  method: string,
  headers: Record<string, string | undefined>,
  body: { access_token?: string | undefined } | undefined,
): { token: string; scheme: TokenScheme } | undefined {
  const header = authorizationToken(headers);
  const form = method === 'POST' && FORM.test(headers['content-type'] ?? '') ? body?.access_token : undefined;
  if (header !== undefined && form !== undefined) throw badRequest('body.access_token: send the token in one place only (RFC 6750 §2).');
  return header ?? (form ? { token: form, scheme: 'Bearer' } : undefined);
}
