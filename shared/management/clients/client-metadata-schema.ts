import * as v from 'valibot';
import { ID_TOKEN_SIGNING_ALGS, TOKEN_ENDPOINT_AUTH_METHODS } from '../../records/client-record.ts';
import { safeText } from '../../validation/safe-text.ts';
import { bool, freeJson, integer, jsonBytesAtMost, notArray, storableJson, storableJsonOf } from '../kit/fields.ts';
import { clientFields } from './client-fields.ts';

/**
 * `client_metadata` (spec §2.3). grant_types, refresh_token and id_token are closed (their fields
 * are given); urls, oauth, saml and wsfed are open objects because the spec shows no inner
 * fields, except the URL lists /authorize and /logout will read, which must hold absolute URLs.
 */

/** Canonical grant names as /token checks them (docs/contract.md §5.1, shared/oauth/issue-token.ts). */
export const GRANT_TYPES = [
  'authorization_code',
  'refresh_token',
  'client_credentials',
  'password',
  'implicit',
  'device_code',
  'otp',
  'token_exchange',
] as const;

/**
 * The registered URN spellings `/token` also accepts for a grant (RFC 8628 §3.4, RFC 8693 §2.1), to
 * the short name they are stored as: the grant check at `/token` compares short names
 * (shared/oauth/grants/grant-registry.ts, docs/management-clients.md).
 */
export const GRANT_TYPE_URNS = {
  'urn:ietf:params:oauth:grant-type:device_code': 'device_code',
  'urn:ietf:params:oauth:grant-type:token-exchange': 'token_exchange',
} as const satisfies Record<string, (typeof GRANT_TYPES)[number]>;

const GRANT_SPELLINGS = [...GRANT_TYPES, ...(Object.keys(GRANT_TYPE_URNS) as (keyof typeof GRANT_TYPE_URNS)[])];
const shortName = (spelling: (typeof GRANT_SPELLINGS)[number]): (typeof GRANT_TYPES)[number] =>
  spelling in GRANT_TYPE_URNS ? GRANT_TYPE_URNS[spelling as keyof typeof GRANT_TYPE_URNS] : (spelling as (typeof GRANT_TYPES)[number]);

const grantTypes = v.pipe(
  v.array(v.picklist(GRANT_SPELLINGS, `must be one of ${GRANT_SPELLINGS.join(', ')}`), 'must be an array of grant type names'),
  v.maxLength(GRANT_SPELLINGS.length, `must hold at most ${GRANT_SPELLINGS.length} grant types`),
  // A URN and its short name, or a repeated name, mean nothing more; keep the list canonical.
  v.transform((a) => [...new Set(a.map(shortName))]),
);

/**
 * RFC 6749 §3.1.2: a redirection endpoint is an absolute URI without a fragment. The same shape is
 * asked of the other URL lists (origins have no path in practice, but we do not refuse one).
 */
const absoluteUrl = v.pipe(
  v.string('must be an absolute URL'),
  safeText(),
  v.maxLength(2048, 'must be at most 2048 characters'),
  v.check((s) => URL.canParse(s) && /^[a-z][a-z0-9+.-]*:\/\//i.test(s), 'must be an absolute URL'),
  v.check((s) => !s.includes('#'), 'must not contain a fragment (RFC 6749 §3.1.2)'),
);
const urlList = v.pipe(v.array(absoluteUrl, 'must be an array of absolute URLs'), v.maxLength(100, 'must hold at most 100 URLs'));

/**
 * The members of `client_metadata` that are open objects (spec §2.3 "inner fields not shown"), by
 * their bound as JSON: a PATCH merges them key by key, so the stored value keeps it too
 * (update-client.ts).
 */
export const OPEN_METADATA_BYTES = { urls: 16_384, oauth: 8192, saml: 8192, wsfed: 8192 } as const;

const urls = v.pipe(
  v.unknown(),
  notArray,
  v.looseObject(
    {
      redirect_uris: v.optional(urlList),
      post_logout_redirect_uris: v.optional(urlList),
      allowed_origins: v.optional(urlList),
      web_origins: v.optional(urlList),
    },
    'must be a JSON object',
  ),
  jsonBytesAtMost(OPEN_METADATA_BYTES.urls),
  // Its unknown members are kept as sent, so they must be storable too.
  storableJson,
);

/** One year; Auth0's ceiling for absolute refresh-token lifetime is of that order. */
const MAX_REFRESH_LIFETIME = 31_536_000;
/** 30 days: an ID token is a login proof, not a session. */
const MAX_ID_TOKEN_LIFETIME = 2_592_000;

/** Members a private or symmetric JWK carries (RFC 7518 §6.2.2, §6.3.2, §6.4.1): a client registers public keys only. */
const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
export const MAX_CLIENT_JWKS = 10;
export const CLIENT_JWKS_BYTES = 16_384;

/** RFC 7591 §2 `jwks`: a JWK Set of public keys, bounded in count and size (docs/client-authentication.md). */
type JwkSet = { keys: ({ kty: string } & Record<string, unknown>)[] } & Record<string, unknown>;
const jwks = v.pipe(
  v.unknown(),
  notArray,
  v.looseObject(
    {
      keys: v.pipe(
        v.array(
          v.pipe(
            v.unknown(),
            notArray,
            v.looseObject(
              { kty: v.pipe(v.string('must be a string'), v.maxLength(16, 'must be at most 16 characters')) },
              'must be a JSON object',
            ),
            v.check((k) => !PRIVATE_JWK_MEMBERS.some((m) => m in k), 'must be a public key (no private or symmetric key members)'),
          ),
          'must be an array of JWKs',
        ),
        v.minLength(1, 'must hold at least one key'),
        v.maxLength(MAX_CLIENT_JWKS, `must hold at most ${MAX_CLIENT_JWKS} keys`),
      ),
    },
    'must be a JSON object',
  ),
  jsonBytesAtMost<JwkSet>(CLIENT_JWKS_BYTES),
  storableJsonOf<JwkSet>(),
);

/**
 * RFC 7591 §2 `jwks_uri`: https, or http on a loopback host (a developer's key server; the fetch
 * itself allows it only in local mode, docs/client-authentication.md).
 */
const jwksUri = v.pipe(
  absoluteUrl,
  v.check((s) => {
    const u = new URL(s);
    return u.protocol === 'https:' || (u.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(u.hostname));
  }, 'must be an https URL'),
);

const nullable = <T extends v.GenericSchema>(schema: T) => v.optional(v.nullable(schema));

export const ClientMetadataSchema = clientFields.object({
  grant_types: v.optional(grantTypes),
  urls: v.optional(urls),
  refresh_token: v.optional(
    clientFields.object({
      expiration_enabled: v.optional(bool),
      expiration_lifetime: v.optional(integer(60, MAX_REFRESH_LIFETIME)),
    }),
  ),
  id_token: v.optional(clientFields.object({ expiration_lifetime: v.optional(integer(60, MAX_ID_TOKEN_LIFETIME)) })),
  oauth: v.optional(freeJson(OPEN_METADATA_BYTES.oauth)),
  saml: v.optional(freeJson(OPEN_METADATA_BYTES.saml)),
  wsfed: v.optional(freeJson(OPEN_METADATA_BYTES.wsfed)),
  // Registered client metadata (RFC 7591 §2, OIDC Registration §2, RFC 9126 §6, RFC 9449 §5.2);
  // null clears one back to its default (docs/client-authentication.md).
  token_endpoint_auth_method: nullable(v.picklist(TOKEN_ENDPOINT_AUTH_METHODS, `must be one of ${TOKEN_ENDPOINT_AUTH_METHODS.join(', ')}`)),
  jwks: nullable(jwks),
  jwks_uri: nullable(jwksUri),
  id_token_signed_response_alg: nullable(v.picklist(ID_TOKEN_SIGNING_ALGS, `must be one of ${ID_TOKEN_SIGNING_ALGS.join(', ')}`)),
  require_pushed_authorization_requests: nullable(bool),
  dpop_bound_access_tokens: nullable(bool),
});

export type ClientMetadataInput = v.InferOutput<typeof ClientMetadataSchema>;
