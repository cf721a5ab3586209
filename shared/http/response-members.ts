import * as v from 'valibot';

/**
 * Members shared by the JSON answers of the OAuth 2.0 / OIDC endpoints and health, described as
 * valibot schemas for the OpenAPI document (handlers' `responses`, shared/http/response-spec.ts).
 * Each endpoint's schema has a module of its own (`*-response-schema.ts`), so a function bundles
 * only its own answer's schema. Objects stay open (`v.object`): a provider may add members
 * (RFC 8414 §3.2, RFC 7662 §2.2, OIDC Core §5.3).
 */
export const jsonString = v.string();
export const jsonSeconds = v.pipe(v.number(), v.integer());
