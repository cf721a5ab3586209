import { randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { SignJWT } from 'jose';
import type { IdentityProviderView } from '#shared/records/identity-provider-record.ts';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import type { TestService } from '../service/local-service.ts';
import { managementCaller } from '../service/management-api.ts';
import type { ExternalProvider } from './external-provider.ts';
import { storedItem } from './login-grants.ts';

/** RFC 8693 §2.1 and §3 names. */
export const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
export const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';
export const JWT_TYPE = 'urn:ietf:params:oauth:token-type:jwt';

export interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, any>;
  ms: number;
}

/** POST /token as a form; `authorization` for a confidential client, else the public client's `client_id` in the body. */
export async function postToken(
  svc: TestService,
  params: Record<string, string>,
  options: { authorization?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const started = performance.now();
  const res = await fetch(`${svc.url}/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(options.authorization ? { authorization: options.authorization } : {}),
      ...options.headers,
    },
    body: new URLSearchParams(params),
  });
  const body = (await res.json()) as Record<string, any>;
  return { status: res.status, headers: res.headers, body, ms: performance.now() - started };
}

/** A tenant's identity provider for `external` (default: in the default tenant), created through the management API (POST, 201). */
export async function registerProvider(
  svc: TestService,
  external: Pick<ExternalProvider, 'issuer' | 'clientId'>,
  fields: Record<string, unknown> = {},
  tenantId = DEFAULT_TENANT_ID,
): Promise<IdentityProviderView> {
  const call = managementCaller(svc.url, await svc.managementToken());
  const res = await call('POST', `/tenants/${tenantId}/identity-providers`, {
    body: {
      provider_name: `idp-${randomUUID().slice(0, 8)}`,
      provider_type: 'oidc',
      issuer: external.issuer,
      client_id: external.clientId,
      scopes: ['openid', 'email', 'profile'],
      enabled: true,
      ...fields,
    },
  });
  if (res.status !== 201) throw new Error(`POST identity-providers: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as IdentityProviderView;
}

/** An ID token signed with the provider's current key, with any claim (and header) a test needs. */
export async function craftIdToken(
  external: ExternalProvider,
  claims: Record<string, unknown>,
  header: Record<string, unknown> = {},
  key: Parameters<SignJWT['sign']>[0] = external.privateKey,
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iss: external.issuer, aud: external.clientId, iat: now, exp: now + 600, ...claims })
    .setProtectedHeader({ alg: external.alg, kid: external.kid, typ: 'JWT', ...header })
    .sign(key);
}

/** The user linked to (provider, sub), read from the identity's marker; undefined when none is. */
export async function linkedUserId(svc: TestService, providerId: string, sub: string): Promise<string | undefined> {
  const marker = await storedItem(svc, keys.marker('IDENTITY', providerId, sub));
  return marker?.user_id as string | undefined;
}

/** The user's identity items (`USER#{u}` / `IDENTITY#{id}`, docs/data-model.md), read consistently. */
export async function storedIdentities(svc: TestService, userId: string): Promise<Record<string, any>[]> {
  const { runtime } = svc.stack;
  const out = await runtime.db.send(
    new QueryCommand({
      TableName: runtime.config.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
      ExpressionAttributeValues: { ':pk': `USER#${userId}`, ':sk': 'IDENTITY#' },
      ConsistentRead: true,
    }),
  );
  return out.Items ?? [];
}

/** The users of the default tenant with this email (the Users API's index lookup). */
export async function usersWithEmail(svc: TestService, email: string): Promise<Record<string, any>[]> {
  const call = managementCaller(svc.url, await svc.managementToken());
  const res = await call('GET', `/users?q=${encodeURIComponent(`(email=${email})`)}`);
  if (res.status !== 200) throw new Error(`GET /users: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.items;
}

export const uniqueEmail = () => `fed.${randomUUID().slice(0, 8)}@example.com`;
