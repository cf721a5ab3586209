import * as v from 'valibot';
import { oauthError } from '../../errors.ts';
import { issueUserTokens } from '../user-tokens/issue-user-tokens.ts';
import { defineGrant } from './token-grant.ts';

/** RFC 8628 §3.5 error descriptions, one per outcome of a poll. */
const REFUSALS = {
  authorization_pending: 'The user has not yet approved the device.',
  slow_down: 'Polling too fast: wait the interval plus 5 seconds between requests.',
  access_denied: 'The user denied the request.',
  expired_token: 'The device code has expired; start again at /device_code.',
  invalid_grant: 'The device code is not valid.',
} as const;

/**
 * RFC 8628 §3.4 device access token request (docs/contract.md §5.1): `device_code` plus the client as at
 * `/device_code` (public clients send `client_id` alone, docs/contract.md §7.8). Each poll is one read and
 * one conditional write (store/device-codes-repository.ts): `authorization_pending`, `slow_down`
 * (the interval grows by 5 s), `access_denied`, `expired_token`, and, once approved, user tokens
 * through the user-token core to the first poll only; a code of another client, a used or unknown
 * one is `invalid_grant`. The user is read again: one blocked or deleted since is `invalid_grant`.
 */
export const deviceCode = defineGrant({
  name: 'device_code',
  aliases: ['urn:ietf:params:oauth:grant-type:device_code'],
  params: v.looseObject({ device_code: v.pipe(v.string(), v.minLength(1, 'is required'), v.maxLength(256)) }),

  async handle({ client }, request, deps, context) {
    const polled = await deps.deviceCodes.poll(request.device_code, client.id);
    if (polled.outcome !== 'issue') throw oauthError(400, polled.outcome, REFUSALS[polled.outcome]);
    const { device } = polled;
    const user = device.user_id === undefined ? undefined : await deps.findUser(device.user_id);
    if (!user || user.blocked || user.tenant_id !== device.tenant_id) throw oauthError(400, 'invalid_grant', REFUSALS.invalid_grant);
    return issueUserTokens(
      {
        client,
        user,
        // What the user approved on the consent page, for the Resource the device named.
        request: { scope: (device.granted_scopes ?? []).join(' '), audience: device.audience },
        authTime: device.auth_time ?? Math.floor(deps.now().getTime() / 1000),
        amr: device.amr,
        // A password change or block after the user approved the device kills the approval.
        authorizedAt: device.decided_at ?? device.created_at,
        dpop: context.dpop,
      },
      deps,
    );
  },
});
