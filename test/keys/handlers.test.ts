import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { createLocalJWKSet, jwtVerify } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USERINFO_CLAIMS } from '#shared/oauth/user-tokens/user-claims.ts';
import { createRuntime, type Runtime, setRuntime } from '#shared/runtime.ts';
import { handler as rotate } from '../../functions/keys/rotate-keys.ts';
import { handler as discovery } from '../../functions/oauth/discovery.ts';
import { handler as jwks } from '../../functions/oauth/jwks.ts';
import { claims, ISSUER, localConfig } from '../support/keys/key-test-env.ts';
import { createTestTable } from '../support/service/dynamodb.ts';

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'oth'];

function event(path: string): APIGatewayProxyEvent {
  return {
    resource: path,
    path,
    httpMethod: 'GET',
    headers: { Accept: 'application/json' },
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: { requestId: `req-${Math.random()}` },
  } as unknown as APIGatewayProxyEvent;
}
const context = {
  awsRequestId: 'aws-req',
  functionName: 'test',
  functionVersion: '1',
  invokedFunctionArn: 'arn',
  memoryLimitInMB: '128',
  getRemainingTimeInMillis: () => 10_000,
} as unknown as Context;

describe('well-known handlers', () => {
  let dir: string;
  let runtime: Runtime;
  beforeAll(async () => {
    const table = await createTestTable('keys-handlers');
    dir = mkdtempSync(join(tmpdir(), 'keys-handlers-'));
    runtime = createRuntime(localConfig(table, join(dir, 'master.key'), { DOCS_URL: 'https://docs.example.test' }), { db: table.db });
    setRuntime(runtime);
  });
  afterAll(() => {
    setRuntime(undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  it('the scheduled rotation function creates the keys on its first run (EventBridge event, no HTTP pipeline)', async () => {
    const out = await rotate({} as Record<string, never>, context);
    expect(out.results.map((r) => r.action)).toEqual(['created', 'created']);
  });

  it('GET /.well-known/jwks.json: RFC 7517 §5 JWK Set of current and next keys of both algs, public members only, cacheable', async () => {
    const res = await jwks(event('/.well-known/jwks.json'), context);
    expect(res.statusCode).toBe(200);
    expect(res.headers['Cache-Control']).toBe('public, max-age=300');
    const body = JSON.parse(res.body) as { keys: Record<string, unknown>[] };
    expect(body.keys).toHaveLength(4);
    for (const k of body.keys) {
      for (const m of PRIVATE_MEMBERS) expect(k).not.toHaveProperty(m);
      expect(k.use).toBe('sig');
      expect(Object.keys(k).sort()).toEqual(
        k.kty === 'EC' ? ['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y'] : ['alg', 'e', 'kid', 'kty', 'n', 'use'],
      );
    }
    expect(body.keys.map((k) => k.alg)).toEqual(['ES256', 'ES256', 'RS256', 'RS256']);
    // A relying party verifies our tokens with exactly this document.
    const token = await runtime.keys.signJwt('ES256', { typ: 'at+jwt' }, claims(new Date()));
    await jwtVerify(token, createLocalJWKSet(body as never), { issuer: ISSUER, algorithms: ['ES256'] });
  });

  it('RFC 8414 / OIDC Discovery: both well-known paths serve the same document listing only what exists', async () => {
    const a = await discovery(event('/.well-known/openid-configuration'), context);
    const b = await discovery(event('/.well-known/oauth-authorization-server'), context);
    expect(a.statusCode).toBe(200);
    expect(a.body).toBe(b.body);
    const doc = JSON.parse(a.body) as Record<string, unknown>;
    expect(doc).toEqual({
      issuer: ISSUER,
      authorization_endpoint: `${ISSUER}/authorize`,
      token_endpoint: `${ISSUER}/token`,
      jwks_uri: `${ISSUER}/.well-known/jwks.json`,
      response_types_supported: ['code', 'token', 'id_token', 'id_token token'],
      response_modes_supported: ['query', 'fragment', 'form_post'],
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
      // RFC 8414 §2: registered names only; the spec's aliases and `otp` are not listed (docs/tokens.md).
      grant_types_supported: [
        'client_credentials',
        'refresh_token',
        'password',
        'authorization_code',
        'urn:ietf:params:oauth:grant-type:device_code',
        'urn:ietf:params:oauth:grant-type:token-exchange',
        'implicit',
      ],
      request_parameter_supported: false,
      request_uri_parameter_supported: false,
      pushed_authorization_request_endpoint: `${ISSUER}/par`,
      require_pushed_authorization_requests: false,
      device_authorization_endpoint: `${ISSUER}/device_code`,
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'],
      token_endpoint_auth_signing_alg_values_supported: ['RS256', 'PS256', 'ES256', 'EdDSA'],
      introspection_endpoint: `${ISSUER}/introspect`,
      introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'private_key_jwt'],
      introspection_endpoint_auth_signing_alg_values_supported: ['RS256', 'PS256', 'ES256', 'EdDSA'],
      revocation_endpoint: `${ISSUER}/revoke`,
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'],
      revocation_endpoint_auth_signing_alg_values_supported: ['RS256', 'PS256', 'ES256', 'EdDSA'],
      dpop_signing_alg_values_supported: ['ES256', 'ES384', 'EdDSA', 'PS256', 'RS256'],
      userinfo_endpoint: `${ISSUER}/userinfo`,
      end_session_endpoint: `${ISSUER}/logout`,
      scopes_supported: ['openid', 'profile', 'email', 'address', 'phone', 'offline_access'],
      claims_supported: [...USERINFO_CLAIMS, 'iss', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'at_hash', 'sid', 'amr', 'acr'],
      acr_values_supported: ['phr', 'phrh'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256', 'ES256'],
      service_documentation: 'https://docs.example.test',
    });
    expect(a.headers['Cache-Control']).toBe('public, max-age=300');
  });

  it('openid-client (a certified relying party) accepts the discovery document', async () => {
    const fetchLocal = async (url: string) => {
      const path = new URL(url).pathname;
      const res = await discovery(event(path), context);
      return new Response(res.body, { status: res.statusCode, headers: res.headers });
    };
    const config = await client.discovery(new URL(ISSUER), 'client-1', 'secret', undefined, { [client.customFetch]: fetchLocal });
    expect(config.serverMetadata().token_endpoint).toBe(`${ISSUER}/token`);
    expect(config.serverMetadata().jwks_uri).toBe(`${ISSUER}/.well-known/jwks.json`);
    // OIDC Discovery §3: what a relying party needs to call /userinfo and check ID tokens.
    expect(config.serverMetadata().userinfo_endpoint).toBe(`${ISSUER}/userinfo`);
    expect(config.serverMetadata().scopes_supported).toEqual(expect.arrayContaining(['openid', 'profile', 'email', 'address', 'phone']));
    expect(config.serverMetadata().claims_supported).toEqual(
      expect.arrayContaining(['sub', 'email', 'email_verified', 'phone_number', 'phone', 'birthdate', 'birthday', 'updated_at']),
    );
    expect(config.serverMetadata().id_token_signing_alg_values_supported).toContain('RS256');
    expect(config.serverMetadata().subject_types_supported).toEqual(['public']);
  });
});
