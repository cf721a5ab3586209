import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findGrant, supportedGrantTypes } from '#shared/oauth/grants/grant-registry.ts';
import { basicAuth, startTestService, type TestService } from '../support/service/local-service.ts';
import { managementCaller } from '../support/service/management-api.ts';

/**
 * The grant registry of `/token` (shared/oauth/grants/, docs/tokens.md): dispatch by every
 * spelling of docs/contract.md §5.1, `unsupported_grant_type` for anything else, `unauthorized_client` for a
 * known grant the client does not list (by its short name, docs/contract.md §7.7), and the error wording a
 * newcomer meets first.
 */
let svc: TestService;
let call: ReturnType<typeof managementCaller>;

beforeAll(async () => {
  svc = await startTestService();
  call = managementCaller(svc.url, await svc.managementToken());
});
afterAll(async () => svc?.stop());

const token = async (params: Record<string, string>, auth: string | undefined = basicAuth(svc.clientId, svc.clientSecret)) => {
  const res = await fetch(`${svc.url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(auth ? { authorization: auth } : {}) },
    body: new URLSearchParams(params),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
};

/** A confidential client allowed exactly these grants (POST /clients), with its Basic credentials. */
async function clientWith(grant_types: string[]): Promise<string> {
  const res = await call('POST', '/clients', {
    body: { client_name: `grants ${grant_types.join(' ')}`, client_metadata: { grant_types } },
  });
  expect(res.status).toBe(201);
  return basicAuth(res.body.id, res.body.client_secret);
}

describe('grant dispatch (docs/contract.md §5.1)', () => {
  it('a grant_type that names no grant is unsupported_grant_type, also the names every object has', async () => {
    for (const grant_type of [
      'magic',
      'implicit',
      'constructor',
      '__proto__',
      'toString',
      'hasOwnProperty',
      'CLIENT_CREDENTIALS',
      '<script>x</script>',
    ]) {
      const res = await token({ grant_type });
      expect(res, grant_type).toEqual({
        status: 400,
        body: expect.objectContaining({
          error: 'unsupported_grant_type',
          // docs/contract.md §8: the error names the field and never echoes the value sent
          error_description: 'body.grant_type: is not a supported grant type.',
        }),
      });
    }
  });

  it('an unknown grant still needs a client that authenticates: 401 first', async () => {
    expect((await token({ grant_type: 'magic' }, basicAuth(svc.clientId, 'wrong'))).status).toBe(401);
  });

  /** Every spelling of docs/contract.md §5.1 but client_credentials, with the short name it stands for. */
  const SPELLINGS: [string, string][] = [
    ['urn:ietf:params:oauth:grant-type:device_code', 'device_code'],
    ['device_code', 'device_code'],
    ['urn:ietf:params:oauth:grant-type:token-exchange', 'token_exchange'],
    ['token_exchange', 'token_exchange'],
    ['code', 'authorization_code'],
    ['authorization_code_verifier', 'authorization_code'],
    ['authorization_code', 'authorization_code'],
    ['password', 'password'],
    ['otp', 'otp'],
    ['refresh_token', 'refresh_token'],
  ];
  const expectEach = async (auth: string, error: string, description: (name: string) => string, spellings = SPELLINGS) => {
    for (const [grant_type, name] of spellings) {
      // Each grant's own parameters are validated before dispatch; unknown ones are ignored (RFC 6749 §3.2).
      const res = await token(
        {
          grant_type,
          refresh_token: 'x',
          username: 'x',
          password: 'x',
          otp: '000000',
          code: 'x',
          redirect_uri: 'x',
          device_code: 'x',
          subject_token: 'x',
          subject_token_type: 'x',
        },
        auth,
      );
      expect(res, grant_type).toEqual({
        status: 400,
        body: expect.objectContaining({ error, error_description: `body.grant_type: ${description(name)}` }),
      });
    }
  };

  it('every alias is checked against the short name in client_metadata.grant_types (docs/contract.md §7.7)', async () => {
    await expectEach(await clientWith(['client_credentials']), 'unauthorized_client', (name) => `the client may not use ${name}.`);
  });

  it('every grant of docs/contract.md §5.1 but otp is in discovery by its registered name (RFC 8414 §2), no alias', () => {
    const names = new Set(SPELLINGS.map(([, name]) => name));
    names.delete('otp');
    const listedNames = supportedGrantTypes.map((listed) => findGrant(listed)?.name);
    for (const name of names) expect(listedNames, name).toContain(name);
    for (const alias of ['code', 'authorization_code_verifier', 'device_code', 'token_exchange', 'otp']) {
      expect(supportedGrantTypes, alias).not.toContain(alias);
    }
  });

  it('client_credentials runs for a client that lists it, and only then', async () => {
    expect(
      (await token({ grant_type: 'client_credentials', audience: svc.managementAudience }, await clientWith(['authorization_code']))).body
        .error,
    ).toBe('unauthorized_client');
    // Not authorized for the management API, but past dispatch: the grant's own rule answers.
    expect(
      (await token({ grant_type: 'client_credentials', audience: svc.managementAudience }, await clientWith(['client_credentials']))).body
        .error,
    ).toBe('invalid_target');
  });
});

describe('what a newcomer reads', () => {
  it('a missing grant_type is "body.grant_type: is required", in a form or a JSON body', async () => {
    expect(await token({ audience: svc.managementAudience })).toEqual({
      status: 400,
      body: expect.objectContaining({ error: 'invalid_request', error_description: 'body.grant_type: is required' }),
    });
    const json = await fetch(`${svc.url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: svc.clientId }),
    });
    expect(json.status).toBe(400);
    expect(((await json.json()) as Record<string, string>).message).toBe('body.grant_type: is required');
    expect((await token({ grant_type: '' })).body.error_description).toBe('body.grant_type: is required');
  });

  it('the management API audience without its trailing slash: invalid_target that says so', async () => {
    const res = await token({ grant_type: 'client_credentials', audience: svc.managementAudience.replace(/\/$/, '') });
    expect(res).toEqual({
      status: 400,
      body: expect.objectContaining({
        error: 'invalid_target',
        error_description:
          'body.audience: names no resource of this tenant. A resource whose identifier differs only by a trailing slash exists.',
      }),
    });
  });

  it('a Resource asked for with an extra or a missing trailing slash: the error says so, by audience or resource', async () => {
    const base = `https://slash-${Date.now()}.example.com/api`;
    for (const identifier_url of [base, `${base}/v2/`]) {
      const created = await call('POST', '/resources', {
        body: { resource_type: 'api', resource_name: identifier_url, resource_metadata: { identifier_url } },
      });
      expect(created.status).toBe(201);
    }
    for (const asked of [`${base}/`, `${base}/v2`]) {
      for (const param of ['audience', 'resource']) {
        const res = await token({ grant_type: 'client_credentials', [param]: asked });
        expect(res.status).toBe(400);
        expect(res.body.error_description).toBe(
          'body.audience: names no resource of this tenant. A resource whose identifier differs only by a trailing slash exists.',
        );
      }
    }
    // Asked again while the miss is cached: the same answer.
    expect((await token({ grant_type: 'client_credentials', audience: `${base}/` })).body.error_description).toContain(
      'differs only by a trailing slash',
    );
  });

  it('an audience with no twin says only that it does not exist', async () => {
    const res = await token({ grant_type: 'client_credentials', audience: `https://nothing-${Date.now()}.example.com/` });
    expect(res.body).toMatchObject({
      error: 'invalid_target',
      error_description: 'body.audience: names no resource of this tenant.',
    });
  });
});
