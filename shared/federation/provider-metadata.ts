import * as v from 'valibot';
import { ProviderError } from './federation-errors.ts';
import type { FetchJson } from './fetch-bounded.ts';
import { checkProviderUrl, MAX_PROVIDER_URL_LENGTH, type UrlPolicy } from './provider-url.ts';

/**
 * A provider's discovery document (OIDC Discovery 1.0 §3, §4): what federation needs of it, and
 * the rule that makes it trustworthy, its `issuer` equal to the configured issuer (§4.3).
 * docs/federation.md "Reading a provider" says why the sizes are what they are.
 */

/** Google's document is about 1.5 KB, Microsoft's and Okta's under 6 KB. */
export const METADATA_MAX_BYTES = 64 * 1024;

const Url = v.pipe(v.string(), v.maxLength(MAX_PROVIDER_URL_LENGTH), v.url());
const Names = v.pipe(v.array(v.pipe(v.string(), v.maxLength(64))), v.maxLength(64));

/** Unknown members are dropped (valibot's `object`); listed ones are checked. */
export const ProviderMetadataSchema = v.object({
  issuer: v.pipe(v.string(), v.maxLength(MAX_PROVIDER_URL_LENGTH)),
  /** REQUIRED by §3; federated login sends the browser there. */
  authorization_endpoint: Url,
  /** REQUIRED by §3 unless only the implicit flow is used; federated login needs it. */
  token_endpoint: v.optional(Url),
  userinfo_endpoint: v.optional(Url),
  jwks_uri: Url,
  /** REQUIRED by §3; intersected with our own allow-list when an ID token is verified. */
  id_token_signing_alg_values_supported: Names,
  response_types_supported: v.optional(Names),
  scopes_supported: v.optional(Names),
  token_endpoint_auth_methods_supported: v.optional(Names),
  /** RFC 9207 §3: the provider names itself in `iss` on every authorization response; federated login then requires it. */
  authorization_response_iss_parameter_supported: v.optional(v.boolean()),
});

export type ProviderMetadata = v.InferOutput<typeof ProviderMetadataSchema>;

/** OIDC Discovery §4.1: `{issuer}/.well-known/openid-configuration`, a terminating `/` of the issuer removed. */
export function discoveryUrl(issuer: string, policy: UrlPolicy): URL {
  const base = checkProviderUrl(issuer, policy);
  if (base.search) throw new ProviderError('bad_url', 'An issuer has no query component (OIDC Discovery §2).');
  return checkProviderUrl(`${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`, policy);
}

/**
 * Fetches and checks the discovery document of `issuer` (at `configuredUrl` when the provider is
 * configured with a `discovery_url` of its own): its `issuer` must be the configured one exactly
 * (§4.3: no normalising, a trailing slash counts), wherever the document was read, and its
 * `jwks_uri` must pass the same URL policy as the issuer.
 */
export async function fetchProviderMetadata(
  issuer: string,
  fetchJson: FetchJson,
  policy: UrlPolicy,
  configuredUrl?: string,
): Promise<ProviderMetadata> {
  const url = configuredUrl === undefined ? discoveryUrl(issuer, policy) : checkProviderUrl(configuredUrl, policy);
  const body = await fetchJson(url, { maxBytes: METADATA_MAX_BYTES });
  const parsed = v.safeParse(ProviderMetadataSchema, body);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const field = issue.path?.map((p) => String(p.key)).join('.') ?? 'document';
    throw new ProviderError('bad_metadata', `The discovery document of ${issuer} is invalid at ${field}: ${issue.message}`);
  }
  if (parsed.output.issuer !== issuer) {
    throw new ProviderError(
      'issuer_mismatch',
      `The discovery document at ${url.href} names the issuer ${parsed.output.issuer}, not ${issuer}.`,
    );
  }
  checkProviderUrl(parsed.output.jwks_uri, policy);
  return parsed.output;
}
