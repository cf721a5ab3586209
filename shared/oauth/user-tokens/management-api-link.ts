import { oauthError } from '../../errors.ts';
import type { OAuthClient, TokenResource } from '../oauth-deps.ts';

/**
 * docs/security.md "The management API": a user token for the management API (the system
 * Resource) is issued only through a client authorized on it (a Client Resources link, made only
 * by a caller holding every management scope). Without this rule any client of the tenant, made
 * by anyone with `create:clients`, could carry an administrator's management token. Read from the
 * client the token path already holds (its links come with it), so it costs no read; other
 * Resources need no link for user tokens (their users' permissions decide).
 */
export function mayCarryUserTokens(client: Pick<OAuthClient, 'resources'>, resource: Pick<TokenResource, 'id' | 'is_system'>): boolean {
  return !resource.is_system || client.resources.has(resource.id);
}

/** RFC 8707 §2 `invalid_target`: the message names the field, never its value. */
export const NOT_LINKED_MESSAGE = 'audience: the management API issues user tokens only through clients authorized on it.';

/** `invalid_target` (400) at `/token` and `/device_code` for a client not authorized on the management API. */
export function assertMayCarryUserTokens(client: Pick<OAuthClient, 'resources'>, resource: Pick<TokenResource, 'id' | 'is_system'>): void {
  if (!mayCarryUserTokens(client, resource)) throw oauthError(400, 'invalid_target', NOT_LINKED_MESSAGE);
}
