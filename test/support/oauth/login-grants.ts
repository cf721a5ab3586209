import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as client from 'openid-client';
import { expect } from 'vitest';
import type { Key } from '#shared/store/core/writes.ts';
import { basicAuth, type TestService } from '../service/local-service.ts';
import { managementCaller } from '../service/management-api.ts';

/** The one answer of the password and otp grants for wrong, unknown and blocked (docs/contract.md §7.3). */
export const INVALID_CREDENTIALS = {
  code: 'invalid_grant',
  message: 'The credentials are not valid.',
  error: 'invalid_grant',
  error_description: 'The credentials are not valid.',
};

/** A confidential client listing `grant_types` (POST /clients), its Basic header and its openid-client configuration. */
export async function loginClient(svc: TestService, grant_types: string[]) {
  const call = managementCaller(svc.url, await svc.managementToken());
  const created = await call('POST', '/clients', {
    body: { client_name: `login ${grant_types.join(' ')}`, client_metadata: { grant_types } },
  });
  expect(created.status).toBe(201);
  const clientId: string = created.body.id;
  const config = await client.discovery(new URL(svc.url), clientId, undefined, client.ClientSecretBasic(created.body.client_secret), {
    execute: [client.allowInsecureRequests],
  });
  return { clientId, auth: basicAuth(clientId, created.body.client_secret), config };
}

/** POST /token with `grant_type` and `params` as a form, authenticated with `authorization`. */
export async function tokenRequest(svc: TestService, authorization: string, grant_type: string, params: Record<string, string>) {
  const res = await fetch(`${svc.url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization },
    body: new URLSearchParams({ grant_type, ...params }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

/** An item of the service's table, read consistently. */
export const storedItem = async (svc: TestService, key: Key) =>
  (await svc.stack.runtime.db.send(new GetCommand({ TableName: svc.stack.tableName, Key: key, ConsistentRead: true }))).Item;
