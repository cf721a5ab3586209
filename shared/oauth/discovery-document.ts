import type { Config } from '../config.ts';
import { RESPONSE_MODES, RESPONSE_TYPES } from './authorize/authorize-request.ts';
import { CLIENT_ASSERTION_ALGS } from './client-auth/client-assertion.ts';
import { DPOP_ALGS } from './dpop/dpop-algs.ts';
import { supportedGrantTypes } from './grants/grant-registry.ts';
import { ACR_VALUES_SUPPORTED } from './user-tokens/acr.ts';
import { idTokenAlgsOf } from './user-tokens/id-token-algs.ts';
import { USERINFO_CLAIMS } from './user-tokens/user-claims.ts';
import { OIDC_SCOPES } from './user-tokens/user-token-scopes.ts';

// docs/client-authentication.md "Client authentication methods": the same methods at every client-authenticated endpoint.
const CLIENT_AUTH = ['client_secret_basic', 'client_secret_post', 'private_key_jwt'];
/**
 * Authorization server metadata (RFC 8414 §2, OIDC Discovery 1.0 §3): the endpoints, the grants
 * of the grant registry, the OIDC scopes and the user claims. Only what works end to end is
 * listed: a relying party that reads `grant_types_supported` or `response_types_supported` must be
 * able to use what it finds (docs/keys.md, "Discovery"). A new endpoint adds its member here.
 */
export function buildDiscoveryDocument(config: Pick<Config, 'issuer' | 'docsUrl' | 'keyMode'>): Record<string, unknown> {
  const iss = config.issuer;
  return {
    // RFC 8414 §3.3 / OIDC Discovery §4.3: must equal the `iss` of our tokens and the URL prefix.
    issuer: iss,
    // Authorization endpoint (docs/browser-flows.md "Authorization endpoint").
    authorization_endpoint: `${iss}/authorize`,
    token_endpoint: `${iss}/token`,
    jwks_uri: `${iss}/.well-known/jwks.json`,
    response_types_supported: [...RESPONSE_TYPES],
    response_modes_supported: [...RESPONSE_MODES],
    // RFC 7636 §4.2; `plain` is refused (docs/contract.md §5).
    code_challenge_methods_supported: ['S256'],
    // RFC 9207 §3: every authorization response carries `iss`.
    authorization_response_iss_parameter_supported: true,
    // RFC 8414 §2: registered names only (grant-registry.ts); `implicit` is a grant of the
    // authorization endpoint, listed with /token's.
    grant_types_supported: [...supportedGrantTypes, 'implicit'],
    // OIDC Discovery §3: both default to a promise (`request_uri_parameter_supported` to true) that
    // /authorize does not keep: it takes no request objects (OIDC Core §6).
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    // RFC 9126 §5: pushed authorization requests; a client may require them
    // (`client_metadata.require_pushed_authorization_requests`), the stage does not.
    pushed_authorization_request_endpoint: `${iss}/par`,
    require_pushed_authorization_requests: false,
    // RFC 8628 §4: the device authorization endpoint (POST; GET accepted, docs/contract.md §5).
    device_authorization_endpoint: `${iss}/device_code`,
    // `none`: public clients identify themselves with client_id only (docs/contract.md §5.1).
    token_endpoint_auth_methods_supported: [...CLIENT_AUTH, 'none'],
    // RFC 8414 §2: the algorithms a private_key_jwt assertion may use (client-auth/client-assertion.ts).
    token_endpoint_auth_signing_alg_values_supported: [...CLIENT_ASSERTION_ALGS],
    introspection_endpoint: `${iss}/introspect`,
    // RFC 7662 §2.1: the caller of introspection must be authenticated.
    introspection_endpoint_auth_methods_supported: CLIENT_AUTH,
    introspection_endpoint_auth_signing_alg_values_supported: [...CLIENT_ASSERTION_ALGS],
    revocation_endpoint: `${iss}/revoke`,
    // RFC 7009 §2.1: a public client revokes its own tokens with its client_id.
    revocation_endpoint_auth_methods_supported: [...CLIENT_AUTH, 'none'],
    revocation_endpoint_auth_signing_alg_values_supported: [...CLIENT_ASSERTION_ALGS],
    // OIDC Core §5.3; answers plain JSON (no signed or encrypted userinfo responses).
    userinfo_endpoint: `${iss}/userinfo`,
    // RFC 9449 §5.1: the proof algorithms /token and /userinfo accept (docs/client-authentication.md).
    dpop_signing_alg_values_supported: [...DPOP_ALGS],
    // OIDC RP-Initiated Logout 1.0 §2.1 (shared/browser/logout-page.ts).
    end_session_endpoint: `${iss}/logout`,
    // RECOMMENDED (OIDC Discovery §3): the OIDC scopes only (Resource scopes are each tenant's own).
    scopes_supported: [...OIDC_SCOPES],
    // RECOMMENDED: every claim about the user /userinfo and ID tokens may carry, both spellings (docs/contract.md §7.1).
    // ID tokens add the protocol claims (OIDC Core §2) to the user's.
    claims_supported: [...USERINFO_CLAIMS, 'iss', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'at_hash', 'sid', 'amr', 'acr'],
    // OIDC Discovery §3: the `acr_values` /authorize honours (acr.ts; docs/passkeys.md "amr and acr").
    acr_values_supported: [...ACR_VALUES_SUPPORTED],
    // OIDC Discovery §3 REQUIRED members.
    subject_types_supported: ['public'],
    // The algorithms a client may choose (`client_metadata.id_token_signed_response_alg`), RS256
    // first: the OIDC Registration §2 default, which OIDC Discovery §3 requires listed. kms-sign: ES256 alone.
    id_token_signing_alg_values_supported: [...idTokenAlgsOf(config.keyMode)],
    ...(config.docsUrl ? { service_documentation: config.docsUrl } : {}),
  };
}
