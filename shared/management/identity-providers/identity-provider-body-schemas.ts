import * as v from 'valibot';
import { bool, fieldKit, notArray, text, uuid } from '../kit/fields.ts';

/**
 * The Tenant Identity Providers bodies and paths (docs/contract.md §6, §7.5, §7.7; docs/federation.md
 * "Identity providers"). Unknown fields are rejected. The URLs' policy (https, loopback http in local
 * mode) depends on the stage, so the use cases check it (identity-provider-rules.ts); here only
 * their shape and length.
 */
export const providerFields = fieldKit('reject');

/** Bounds, documented in docs/federation.md "Identity providers". */
export const IDENTITY_PROVIDER_LIMITS = {
  name: 64,
  /** The issuer is part of a GSI2 key (2,048 bytes at most): 600 characters stay inside in any script. */
  issuer: 600,
  url: 2048,
  clientId: 255,
  clientSecret: 1024,
  audience: 255,
  scopes: 20,
  scope: 128,
} as const;

/**
 * Letters, digits, `.`, `_`, `-`, starting with a letter or digit: the name is the `connection` of
 * `/authorize` and a `subject_token_type` of token exchange (docs/contract.md §5.1), so it can never look
 * like a token-type URN (no `:`) and needs no escaping in a URL.
 */
const PROVIDER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const providerName = v.pipe(
  text(IDENTITY_PROVIDER_LIMITS.name),
  v.regex(PROVIDER_NAME, 'must hold only letters, digits, ".", "_" and "-", starting with a letter or digit'),
);

const url = (max: number) => text(max);

/** RFC 6749 §3.3 scope-token: printable ASCII without space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;
const scopes = v.pipe(
  v.array(
    v.pipe(
      v.string('must be a string'),
      v.maxLength(IDENTITY_PROVIDER_LIMITS.scope, `must be at most ${IDENTITY_PROVIDER_LIMITS.scope} characters`),
      v.regex(SCOPE_TOKEN, 'must be a scope token (RFC 6749 §3.3: printable ASCII, no space, quote or backslash)'),
    ),
    'must be an array of strings',
  ),
  v.maxLength(IDENTITY_PROVIDER_LIMITS.scopes, `must hold at most ${IDENTITY_PROVIDER_LIMITS.scopes} scopes`),
  v.check((a) => new Set(a).size === a.length, 'must not repeat a scope'),
);

/** OIDC Core §3.1.2.1's default set, what most providers answer with the claims we copy (docs/contract.md §7.7). */
export const DEFAULT_PROVIDER_SCOPES = ['openid', 'email', 'profile'];

const secret = text(IDENTITY_PROVIDER_LIMITS.clientSecret);

/** The kit's wording for an unknown or missing member (the variant needs a plain object schema, not the kit's pipe). */
const memberMessage = (issue: v.StrictObjectIssue) => (issue.expected === 'never' ? 'unknown field' : 'is required');

const OidcCreate = v.strictObject(
  {
    provider_name: providerName,
    provider_type: v.literal('oidc'),
    issuer: url(IDENTITY_PROVIDER_LIMITS.issuer),
    jwks_uri: v.optional(url(IDENTITY_PROVIDER_LIMITS.url)),
    discovery_url: v.optional(url(IDENTITY_PROVIDER_LIMITS.url)),
    client_id: text(IDENTITY_PROVIDER_LIMITS.clientId),
    client_secret: v.optional(secret),
    scopes: v.optional(scopes, () => [...DEFAULT_PROVIDER_SCOPES]),
    audience: v.optional(text(IDENTITY_PROVIDER_LIMITS.audience)),
    enabled: v.optional(bool, true),
  },
  memberMessage,
);

/** A SAML provider is recognised and answered 501 (docs/contract.md §2): its fields are not ours to judge. */
const SamlCreate = v.looseObject({ provider_type: v.literal('saml') });

const PROVIDER_TYPE_MESSAGE = 'must be "oidc" ("saml" is not implemented)';

export const CreateIdentityProviderBody = v.pipe(
  v.unknown(),
  notArray,
  v.record(v.string(), v.unknown(), 'must be a JSON object'),
  v.variant('provider_type', [OidcCreate, SamlCreate], PROVIDER_TYPE_MESSAGE),
);
export type CreateIdentityProviderInput = v.InferOutput<typeof CreateIdentityProviderBody>;

/**
 * PATCH: merge. `null` removes `jwks_uri`, `discovery_url`, `audience` or the `client_secret`;
 * `provider_type` may be sent but stays `oidc`.
 */
export const UpdateIdentityProviderBody = providerFields.object({
  provider_name: v.optional(providerName),
  provider_type: v.optional(v.literal('oidc', PROVIDER_TYPE_MESSAGE)),
  issuer: v.optional(url(IDENTITY_PROVIDER_LIMITS.issuer)),
  jwks_uri: v.optional(v.nullable(url(IDENTITY_PROVIDER_LIMITS.url))),
  discovery_url: v.optional(v.nullable(url(IDENTITY_PROVIDER_LIMITS.url))),
  client_id: v.optional(text(IDENTITY_PROVIDER_LIMITS.clientId)),
  client_secret: v.optional(v.nullable(secret)),
  scopes: v.optional(scopes),
  audience: v.optional(v.nullable(text(IDENTITY_PROVIDER_LIMITS.audience))),
  enabled: v.optional(bool),
});
export type UpdateIdentityProviderInput = v.InferOutput<typeof UpdateIdentityProviderBody>;

export const IdentityProvidersPath = providerFields.object({ tenant_id: uuid });
export const IdentityProviderPath = providerFields.object({ tenant_id: uuid, provider_id: uuid });
