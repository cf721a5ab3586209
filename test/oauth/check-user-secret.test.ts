import { describe, expect, it } from 'vitest';
import { checkUserSecret } from '../../shared/oauth/grants/user-login.ts';
import { NO_METRICS } from '../../shared/observability/service-metrics.ts';
import type { UserRecord } from '../../shared/records/user-record.ts';

/**
 * checkUserSecret (shared/oauth/grants/user-login.ts) on a user the counting write returns: a user
 * of another tenant than the login's is nobody there, whatever its secret (a login marker is per
 * tenant, so only a corrupt or forged id could name one).
 */
const TENANT = '00000000-0000-7000-8000-00000000000a';
const OTHER = '00000000-0000-7000-8000-00000000000b';
const user = (tenant_id: string) => ({ id: '019b0000-0000-7000-8000-0000000000c1', tenant_id, blocked: false }) as UserRecord;
const deps = (found: UserRecord | undefined) => ({
  login: { failures: { admit: async () => ({ admitted: true as const, user: found }), reset: async () => {} } },
  metrics: NO_METRICS,
});
const rightSecret = { verify: async (u: UserRecord | undefined) => u !== undefined };

describe('checkUserSecret', () => {
  it("returns the tenant's user when its secret is right", async () => {
    expect((await checkUserSecret({ tenantId: TENANT, userId: user(TENANT).id }, rightSecret, deps(user(TENANT)))).id).toBe(
      user(TENANT).id,
    );
  });

  it("another tenant's user is invalid_grant even with the right secret, and its secret is checked as nobody's", async () => {
    const seen: (UserRecord | undefined)[] = [];
    const check = {
      verify: async (u: UserRecord | undefined) => {
        seen.push(u);
        return true;
      },
    };
    await expect(checkUserSecret({ tenantId: TENANT, userId: user(OTHER).id }, check, deps(user(OTHER)))).rejects.toMatchObject({
      status: 400,
      code: 'invalid_grant',
    });
    expect(seen).toEqual([undefined]);
  });
});
