import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { ClientMetadataSchema, GRANT_TYPE_URNS } from '#shared/management/clients/client-metadata-schema.ts';
import { findGrant } from '#shared/oauth/grants/grant-registry.ts';

const grantTypes = (list: unknown) => v.safeParse(ClientMetadataSchema, { grant_types: list });

/** `client_metadata.grant_types` takes every spelling `/token` takes for a grant (docs/management-clients.md). */
describe('client_metadata.grant_types', () => {
  it('accepts the registered URNs (RFC 8628 §3.4, RFC 8693 §2.1) and stores their short names', () => {
    const parsed = grantTypes([
      'urn:ietf:params:oauth:grant-type:device_code',
      'urn:ietf:params:oauth:grant-type:token-exchange',
      'refresh_token',
    ]);
    expect(parsed.success).toBe(true);
    expect(parsed.output).toEqual({ grant_types: ['device_code', 'token_exchange', 'refresh_token'] });
  });

  it('keeps one entry for a URN and its short name', () => {
    const parsed = grantTypes(['device_code', 'urn:ietf:params:oauth:grant-type:device_code']);
    expect(parsed.output).toEqual({ grant_types: ['device_code'] });
  });

  it('stores the name /token checks for each URN /token accepts', () => {
    for (const [urn, name] of Object.entries(GRANT_TYPE_URNS)) expect(findGrant(urn)?.name, urn).toBe(name);
  });

  it('still refuses a URN no grant answers to, and a case variant', () => {
    for (const spelling of ['urn:ietf:params:oauth:grant-type:jwt-bearer', 'URN:IETF:PARAMS:OAUTH:GRANT-TYPE:DEVICE_CODE']) {
      const parsed = grantTypes([spelling]);
      expect(parsed.success, spelling).toBe(false);
      expect(parsed.issues?.[0].message).toMatch(/^must be one of /);
    }
  });
});
