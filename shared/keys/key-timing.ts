/**
 * The clocks of key rotation (docs/keys.md, "Rotation timeline"). They are tied together: a
 * relying party may cache the JWKS for JWKS_MAX_AGE_SECONDS, so a next key must be published at
 * least that long (plus our own cache and some slack) before it signs anything.
 */

/** `Cache-Control: max-age` of `/.well-known/jwks.json`. */
export const JWKS_MAX_AGE_SECONDS = 300;

/** A next key must have been in the JWKS this long before a rotation may promote it. */
export const NEXT_KEY_MIN_PUBLISHED_SECONDS = 2 * JWKS_MAX_AGE_SECONDS;

/**
 * Added to KEY_RETIRE_AFTER_SECONDS before a demoted key leaves the JWKS: containers may sign with
 * it for up to KEY_CACHE_TTL_SECONDS after the rotation, and verifiers' clocks may run behind.
 */
export const RETIRE_MARGIN_SECONDS = 300;

/** How often a container may re-read the keys partition because a token named an unknown kid. */
export const MISS_REFRESH_MS = 2000;
