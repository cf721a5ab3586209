import { oauthError } from '../../errors.ts';
import { TokenExchangeParams } from './token-exchange-types.ts';
import { defineGrant } from './token-grant.ts';

/**
 * RFC 8693 token exchange (docs/contract.md §5.1, §7.7; docs/federation.md "Token exchange"):
 * `subject_token_type` says what `subject_token` is:
 * - a provider's `provider_name`, or the `id_token` / `jwt` URNs (the provider found by the token's
 *   `iss`): an ID token of one of the tenant's enabled identity providers, verified against its
 *   keys, issuer, audience and times; the user found by its identity, or created and linked;
 * - the `access_token` URN: an active user access token of this service, of the same tenant,
 *   exchanged for another audience with scopes never widened.
 * The answer is an access token alone (`issued_token_type`, RFC 8693 §2.2.1): no ID token, it is
 * not a login, and no refresh token. Any problem with the subject token is 400 `invalid_request`
 * (RFC 8693 §2.2.2, docs/contract.md §7.7). Public clients send `client_id` alone, confidential
 * ones authenticate (docs/contract.md §7.8): the token endpoint's client rules.
 */
export const tokenExchange = defineGrant({
  name: 'token_exchange',
  aliases: ['urn:ietf:params:oauth:grant-type:token-exchange'],
  params: TokenExchangeParams,
  preload: (request) => {
    const audience = request.audience ?? request.resource;
    return audience ? { audience } : {};
  },

  // The exchange's work (provider keys, jose's jwtVerify, the federated-user use case) is a chunk
  // of its own, loaded by the first exchange a container serves: every other grant's cold start
  // parses none of it (docs/benchmarks.md "Token function bundle, token exchange").
  async handle(client, request, deps, context) {
    // Exchanged tokens are Bearer only (docs/client-authentication.md "Sender-constrained tokens
    // (DPoP)"): a proof is refused rather than ignored, so no client believes it holds a bound token.
    if (context.dpop) throw oauthError(400, 'invalid_request', 'header.dpop: token exchange issues Bearer tokens only.');
    const { handleTokenExchange } = await import('./token-exchange-handle.ts');
    return handleTokenExchange(client, request, deps, context);
  },
});
