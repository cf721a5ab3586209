import { describe, expect, it } from 'vitest';
import { checkUserSecret } from '#shared/oauth/grants/user-login.ts';
import { NO_METRICS } from '#shared/observability/service-metrics.ts';
import type { EventLog } from '#shared/ports/event-log.ts';
import type { UserRecord } from '#shared/records/user-record.ts';

/**
 * checkUserSecret (shared/oauth/grants/user-login.ts) on a user the counting write returns: a user
 * of another tenant than the login's is nobody there, whatever its secret (a login marker is per
 * tenant, so only a corrupt or forged id could name one).
 */
const TENANT = '00000000-0000-7000-8000-00000000000a';
const OTHER = '00000000-0000-7000-8000-00000000000b';
const user = (tenant_id: string) => ({ id: '019b0000-0000-7000-8000-0000000000c1', tenant_id, blocked: false }) as UserRecord;
/** The events of these attempts are not asserted here (the HTTP tests do): taken and dropped. */
const NO_EVENTS: EventLog = { fold: (e) => ({ item: { ...e } }), record: async () => {} };
const CONTEXT = { clientId: 'client', origin: {}, method: 'password_grant' } as const;
const base = { events: NO_EVENTS, now: () => new Date() };
const deps = (found: UserRecord | undefined) => ({
  login: {
    failures: {
      admit: async () => ({ admitted: true as const, user: found, locksIfFails: false, liftsLockout: false }),
      reset: async () => {},
      leaveOneAttempt: async () => {},
    },
    writeLoginHint: async () => {},
  },
  metrics: NO_METRICS,
  ...base,
});
/** A SecretCheck with nothing to start before the user is read. */
const checkOf = (verify: (u: UserRecord | undefined) => Promise<boolean>) => ({ start: () => ({ verify, settled: Promise.resolve() }) });
const rightSecret = checkOf(async (u) => u !== undefined);

describe('checkUserSecret', () => {
  it("returns the tenant's user when its secret is right", async () => {
    expect((await checkUserSecret({ tenantId: TENANT, userId: user(TENANT).id }, rightSecret, deps(user(TENANT)), CONTEXT)).user.id).toBe(
      user(TENANT).id,
    );
  });

  it("another tenant's user is invalid_grant even with the right secret, and its secret is checked as nobody's", async () => {
    const seen: (UserRecord | undefined)[] = [];
    const check = checkOf(async (u) => {
      seen.push(u);
      return true;
    });
    await expect(checkUserSecret({ tenantId: TENANT, userId: user(OTHER).id }, check, deps(user(OTHER)), CONTEXT)).rejects.toMatchObject({
      status: 400,
      code: 'invalid_grant',
    });
    expect(seen).toEqual([undefined]);
  });

  it('the counting write is sent first, and the check starts before its answer: the hash runs alongside it', async () => {
    const events: string[] = [];
    const check = {
      start: () => {
        events.push('start');
        return { verify: async () => true, settled: Promise.resolve() };
      },
    };
    const counting = {
      login: {
        failures: {
          admit: async () => {
            events.push('count sent');
            await new Promise((r) => setTimeout(r, 10));
            events.push('count answered');
            return { admitted: true as const, user: user(TENANT), locksIfFails: false, liftsLockout: false };
          },
          reset: async () => {},
          leaveOneAttempt: async () => {},
        },
        writeLoginHint: async () => {},
      },
      metrics: NO_METRICS,
      ...base,
    };
    await checkUserSecret({ tenantId: TENANT, userId: user(TENANT).id }, check, counting, CONTEXT);
    expect(events).toEqual(['count sent', 'start', 'count answered']);
  });

  it('a refused attempt (locked) answers 429 only once the work started is done', async () => {
    let finish = () => {};
    let done = false;
    const settled = new Promise<void>((resolve) => {
      finish = () => {
        done = true;
        resolve();
      };
    });
    const check = { start: () => ({ verify: async () => true, settled }) };
    const locked = {
      login: {
        failures: {
          admit: async () => ({ admitted: false as const, retryAfterSeconds: 60 }),
          reset: async () => {},
          leaveOneAttempt: async () => {},
        },
        writeLoginHint: async () => {},
      },
      metrics: NO_METRICS,
      ...base,
    };
    const answer = checkUserSecret({ tenantId: TENANT, userId: user(TENANT).id }, check, locked, CONTEXT).catch((err) => ({ err, done }));
    await new Promise((r) => setTimeout(r, 20));
    finish();
    expect(await answer).toMatchObject({ err: { status: 429, code: 'too_many_requests' }, done: true });
  });

  it("a marker whose prefix is not the user's hash's gets it, success or not; a current one or no marker writes nothing", async () => {
    const hashed = {
      ...user(TENANT),
      password_hash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$iPOQ5f2O21FsjnBvo1AiFcDuSXciCnKUrXFO+yfgNoM',
    };
    const current = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA';
    for (const [marker, right, writes] of [
      [{ passwordPrefix: undefined }, true, 1],
      [{ passwordPrefix: '$argon2id$v=19$m=19456,t=2,p=1$b2xkc2FsdG9sZHNhbHQ' }, false, 1],
      [{ passwordPrefix: current }, true, 0],
      [undefined, true, 0],
    ] as const) {
      const written: [string, string | undefined][] = [];
      const recording = {
        login: {
          failures: {
            admit: async () => ({ admitted: true as const, user: hashed, locksIfFails: false, liftsLockout: false }),
            reset: async () => {},
            leaveOneAttempt: async () => {},
          },
          writeLoginHint: async (u: { id: string }, hash: string | undefined) => {
            written.push([u.id, hash]);
          },
        },
        metrics: NO_METRICS,
        ...base,
      };
      const answer = checkUserSecret(
        { tenantId: TENANT, userId: hashed.id, ...(marker ? { marker } : {}) },
        checkOf(async () => right),
        recording,
        CONTEXT,
      );
      if (right) expect((await answer).user.id).toBe(hashed.id);
      else await expect(answer).rejects.toMatchObject({ code: 'invalid_grant' });
      expect(written, JSON.stringify(marker)).toEqual(writes ? [[hashed.id, hashed.password_hash]] : []);
    }
  });
});
