import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { emfMetrics } from '#shared/observability/service-metrics.ts';
import { GOOD_PASSWORD, type UsersFixture, usersFixture } from '../support/management/users-fixture.ts';
import { INVALID_CREDENTIALS, loginClient, tokenRequest } from '../support/oauth/login-grants.ts';
import { captureStdout } from '../support/service/capture-stdout.ts';
import { basicAuth } from '../support/service/local-service.ts';

type Emf = Record<string, unknown> & {
  _aws: {
    Timestamp: number;
    CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[];
  };
};

/** Every stdout line `fn` writes (where Powertools writes EMF and logs); the EMF ones parsed. */
async function captureEmf(fn: () => Promise<void>): Promise<{ raw: string; emf: Emf[] }> {
  const lines = (await captureStdout(fn)).join('').split('\n').filter(Boolean);
  return { raw: lines.join('\n'), emf: lines.filter((l) => l.includes('"_aws"')).map((l) => JSON.parse(l) as Emf) };
}

/** `metric{dimension=value}` → summed value, over EMF lines, checking each line's shape. */
function totals(lines: Emf[], namespace: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of lines) {
    const [directive] = line._aws.CloudWatchMetrics;
    expect(line._aws.CloudWatchMetrics).toHaveLength(1);
    expect(directive!.Namespace).toBe(namespace);
    expect(line.service).toBe('identity-service');
    const dims = directive!.Dimensions[0]!;
    expect(dims[0]).toBe('service');
    const extra = dims.slice(1).map((d) => `${d}=${String(line[d])}`);
    expect(extra.length).toBeLessThanOrEqual(1);
    for (const m of directive!.Metrics) {
      expect(m.Unit).toBe('Count');
      const values = [line[m.Name]].flat() as number[];
      const key = `${m.Name}{${extra.join(',')}}`;
      out.set(key, (out.get(key) ?? 0) + values.reduce((a, b) => a + b, 0));
    }
  }
  return out;
}

describe('metrics as CloudWatch EMF lines from real handler invocations (published at the end of every invocation)', () => {
  const NS = 'IdentityService/test';
  let fx: UsersFixture;
  beforeAll(async () => {
    fx = await usersFixture({ POWERTOOLS_METRICS_NAMESPACE: NS, METRICS_PUBLISH_SECONDS: '0', LOGIN_LOCKOUT_FAILURES: '2' });
  });
  afterAll(async () => fx?.svc.stop());

  it('counts tokens by grant, failed logins by reason, 429s by route group and cache lookups; no secret in any line', async () => {
    const user = await fx.createUser({ password: GOOD_PASSWORD });
    const { auth } = await loginClient(fx.svc, ['password', 'client_credentials']);
    const tokens: string[] = [];
    const { raw, emf } = await captureEmf(async () => {
      const ok = await tokenRequest(fx.svc, auth, 'password', { username: user.email, password: GOOD_PASSWORD });
      expect(ok.status).toBe(200);
      tokens.push(ok.body.access_token as string);
      for (const attempt of [1, 2]) {
        const wrong = await tokenRequest(fx.svc, auth, 'password', { username: user.email, password: `wrong-${attempt}-Password-77` });
        expect([attempt, wrong.status, wrong.body]).toEqual([attempt, 400, INVALID_CREDENTIALS]);
      }
      const locked = await tokenRequest(fx.svc, auth, 'password', { username: user.email, password: GOOD_PASSWORD });
      expect([locked.status, locked.body.error]).toEqual([429, 'too_many_requests']);
      const cc = await tokenRequest(fx.svc, basicAuth(fx.svc.clientId, fx.svc.clientSecret), 'client_credentials', {
        audience: fx.svc.managementAudience,
      });
      expect(cc.status).toBe(200);
      tokens.push(cc.body.access_token as string);
      const introspected = await fetch(`${fx.svc.url}/introspect`, {
        method: 'POST',
        headers: { authorization: basicAuth(fx.svc.clientId, fx.svc.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: cc.body.access_token as string }),
      });
      expect(introspected.status).toBe(200);
    });
    const t = totals(emf, NS);
    expect(t.get('TokensIssued{grant_type=password}')).toBe(1);
    expect(t.get('TokensIssued{grant_type=client_credentials}')).toBe(1);
    expect(t.get('LoginsFailed{reason=invalid_credentials}')).toBe(2);
    expect(t.get('LoginsFailed{reason=locked}')).toBe(1);
    expect(t.get('Throttled{route_group=oauth}')).toBe(1);
    // One introspection of a token not seen before: a verified-token miss.
    expect(t.get('CacheMiss{cache=verified_token}')).toBe(1);
    // Every request after the first reads the client through the record cache and signs with the cached keys.
    expect(t.get('CacheHit{cache=record}')).toBeGreaterThanOrEqual(4);
    expect(t.get('CacheHit{cache=key}')).toBeGreaterThanOrEqual(2);
    expect([...t.keys()].filter((k) => k.startsWith('ServiceUnavailable'))).toEqual([]);
    for (const secret of [GOOD_PASSWORD, 'wrong-1-Password-77', fx.svc.clientSecret, ...tokens, ...tokens.map((x) => x.split('.')[2]!)]) {
      expect(raw).not.toContain(secret);
    }
  });
});

describe('counters held in the container between publications (emfMetrics)', () => {
  it('publishes the first counts at once, holds what comes within the interval, then publishes the sums; a cold start once', async () => {
    let now = 1_795_550_400_000;
    // Lambda sets this on an on-demand container; Powertools counts a cold start only then.
    vi.stubEnv('AWS_LAMBDA_INITIALIZATION_TYPE', 'on-demand');
    const metrics = emfMetrics({ namespace: 'NS', serviceName: 'identity-service', publishIntervalMs: 60_000, clock: () => now });
    const invocation = (grants: string[]) => {
      for (const g of grants) metrics.count('TokensIssued', ['grant_type', g]);
      metrics.count('CacheHit', ['cache', 'record']);
      metrics.invocationDone('identity-token');
    };
    const first = await captureEmf(async () => invocation(['client_credentials']));
    const held = await captureEmf(async () => {
      for (let i = 0; i < 5; i++) {
        now += 10_000;
        invocation(['client_credentials', 'refresh_token']);
      }
    });
    now += 10_001; // 60.001 s after the first publication
    const due = await captureEmf(async () => invocation(['refresh_token']));

    expect([...totals(first.emf, 'NS').entries()]).toEqual([
      ['ColdStart{function_name=identity-token}', 1],
      ['TokensIssued{grant_type=client_credentials}', 1],
      ['CacheHit{cache=record}', 1],
    ]);
    expect(held.raw).toBe('');
    expect(Object.fromEntries(totals(due.emf, 'NS'))).toEqual({
      'TokensIssued{grant_type=client_credentials}': 5,
      'TokensIssued{grant_type=refresh_token}': 6,
      'CacheHit{cache=record}': 6,
    });
    // One line per dimension value, each with every metric counted under it.
    expect(due.emf).toHaveLength(3);
    vi.unstubAllEnvs();
  });
});
