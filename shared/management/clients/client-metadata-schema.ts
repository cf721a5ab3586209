import * as v from 'valibot';
import { safeText } from '../../validation/safe-text.ts';
import { bool, freeJson, integer, jsonBytesAtMost, notArray, storableJson } from '../kit/fields.ts';
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
});

export type ClientMetadataInput = v.InferOutput<typeof ClientMetadataSchema>;
