/**
 * oidc-provider's DynamoDB storage for the bench's like-for-like refresh peer
 * (bench/servers/oidc-dynamodb-adapter.ts), against the run's DynamoDB Local: every method of the
 * adapter interface, the stored item itself, and oidc-provider's own refresh grant over it.
 */

import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { basicAuth, FORM } from '../../bench/lib/api-event.ts';
import { spawnNode, stopChild, waitForReady } from '../../bench/lib/proc.ts';
import { dynamoDbAdapterFactory } from '../../bench/servers/oidc-dynamodb-adapter.ts';

const endpoint = inject('dynamodbEndpoint');
// On a whole second: the stored expiry is in whole seconds, rounded up (see the adapter).
let clock = Math.floor(Date.now() / 1000) * 1000;
const tableName = `oidc-${randomUUID()}`;
const storage = dynamoDbAdapterFactory({ endpoint, tableName, now: () => clock });
const stored = async (modelId: string) => (await storage.client.send(new GetCommand({ TableName: tableName, Key: { modelId } }))).Item;

beforeAll(async () => {
  await storage.createTable();
  // createTable twice is fine (the server makes its table at every start).
  await storage.createTable();
});
afterAll(() => storage.client.destroy());

describe('oidc-provider DynamoDB adapter', () => {
  it('stores the payload with its expiry and index keys, and finds it by id', async () => {
    const tokens = new storage.Adapter('RefreshToken');
    await tokens.upsert('rt1', { jti: 'rt1', grantId: 'g1', kind: 'RefreshToken' }, 60);
    expect(await tokens.find('rt1')).toEqual({ jti: 'rt1', grantId: 'g1', kind: 'RefreshToken' });
    expect(await stored('RefreshToken:rt1')).toEqual({
      modelId: 'RefreshToken:rt1',
      payload: { jti: 'rt1', grantId: 'g1', kind: 'RefreshToken' },
      expiresAt: Math.ceil(clock / 1000 + 60),
      grantId: 'g1',
    });
    // Another model's item of the same id is another item.
    expect(await new storage.Adapter('AccessToken').find('rt1')).toBeUndefined();
    expect(await tokens.find('missing')).toBeUndefined();
  });

  it('replaces the item on upsert and drops undefined fields', async () => {
    const grants = new storage.Adapter('Grant');
    await grants.upsert('gr', { jti: 'gr', accountId: 'a', openid: { scope: 'openid' } });
    await grants.upsert('gr', { jti: 'gr', accountId: 'b', clientId: undefined });
    expect(await grants.find('gr')).toEqual({ jti: 'gr', accountId: 'b' });
    // No expiry: kept forever, no TTL attribute; Grant is not a grantable model, so no grant index key.
    expect(await stored('Grant:gr')).toEqual({ modelId: 'Grant:gr', payload: { jti: 'gr', accountId: 'b' } });
  });

  it('no longer finds a token once its expiry has passed', async () => {
    const tokens = new storage.Adapter('AccessToken');
    await tokens.upsert('short', { jti: 'short' }, 2);
    clock += 1000;
    expect(await tokens.find('short')).toEqual({ jti: 'short' });
    clock += 999;
    expect(await tokens.find('short')).toEqual({ jti: 'short' });
    clock += 1;
    expect(await tokens.find('short')).toBeUndefined();
  });

  it('marks a token consumed, and consuming a missing one makes no item', async () => {
    const tokens = new storage.Adapter('RefreshToken');
    await tokens.upsert('rt2', { jti: 'rt2' }, 60);
    await tokens.consume('rt2');
    expect(await tokens.find('rt2')).toEqual({ jti: 'rt2', consumed: Math.floor(clock / 1000) });
    await tokens.consume('never');
    expect(await stored('RefreshToken:never')).toBeUndefined();
  });

  it('destroys a token', async () => {
    const tokens = new storage.Adapter('AccessToken');
    await tokens.upsert('gone', { jti: 'gone' }, 60);
    await tokens.destroy('gone');
    expect(await tokens.find('gone')).toBeUndefined();
    expect(await stored('AccessToken:gone')).toBeUndefined();
  });

  it('revokes every token of a grant, whichever model, and nothing of another grant or the Grant itself', async () => {
    const at = new storage.Adapter('AccessToken');
    const rt = new storage.Adapter('RefreshToken');
    const grant = new storage.Adapter('Grant');
    await grant.upsert('g2', { jti: 'g2', grantId: 'g2' } as never);
    for (let i = 0; i < 3; i++) await at.upsert(`at-g2-${i}`, { jti: `at-g2-${i}`, grantId: 'g2' }, 60);
    await rt.upsert('rt-g2', { jti: 'rt-g2', grantId: 'g2' }, 60);
    await rt.upsert('rt-g3', { jti: 'rt-g3', grantId: 'g3' }, 60);
    await rt.revokeByGrantId('g2');
    for (let i = 0; i < 3; i++) expect(await at.find(`at-g2-${i}`)).toBeUndefined();
    expect(await rt.find('rt-g2')).toBeUndefined();
    expect(await rt.find('rt-g3')).toEqual({ jti: 'rt-g3', grantId: 'g3' });
    expect(await grant.find('g2')).toEqual({ jti: 'g2', grantId: 'g2' });
  });

  it('finds a session by uid and a device code by user code, within its own model only', async () => {
    const sessions = new storage.Adapter('Session');
    const codes = new storage.Adapter('DeviceCode');
    await sessions.upsert('s1', { jti: 's1', uid: 'u-1' }, 60);
    await codes.upsert('d1', { jti: 'd1', userCode: 'ABCD-EFGH', grantId: 'g4' }, 60);
    expect(await sessions.findByUid('u-1')).toEqual({ jti: 's1', uid: 'u-1' });
    expect(await codes.findByUserCode('ABCD-EFGH')).toEqual({ jti: 'd1', userCode: 'ABCD-EFGH', grantId: 'g4' });
    expect(await new storage.Adapter('Interaction').findByUid('u-1')).toBeUndefined();
    expect(await sessions.findByUid('u-2')).toBeUndefined();
    expect(await codes.findByUserCode('ZZZZ-ZZZZ')).toBeUndefined();
    await sessions.destroy('s1');
    expect(await sessions.findByUid('u-1')).toBeUndefined();
  });
});

describe("oidc-provider's refresh grant on it (the bench's peer process, `dynamodb:<endpoint>`)", () => {
  let child: ChildProcess | undefined;
  let peer: { url: string; refreshClientId: string; refreshClientSecret: string };
  beforeAll(async () => {
    child = spawnNode(['--import', 'tsx', join(import.meta.dirname, '../../bench/servers/oidc-provider.ts'), '0', `dynamodb:${endpoint}`], {
      server: true,
      quietStderr: true,
    });
    peer = await waitForReady(child, 'oidc-provider (DynamoDB Local)');
  }, 60_000);
  afterAll(async () => {
    if (child) await stopChild(child);
  });
  const refresh = async (token: string) => {
    const res = await fetch(`${peer.url}/token`, {
      method: 'POST',
      headers: { authorization: basicAuth(peer.refreshClientId, peer.refreshClientSecret), 'content-type': FORM },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, string> };
  };

  it('rotates a refresh token once; the rotated one reused is refused and takes its grant with it', async () => {
    const minted = await fetch(`${peer.url}/bench/refresh-tokens?n=1`, { method: 'POST' });
    expect(minted.status).toBe(200);
    const [first] = (await minted.json()) as string[];
    const rotated = await refresh(first!);
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ token_type: 'Bearer', scope: 'openid offline_access' });
    expect(rotated.body.refresh_token).toMatch(/^[\w-]{43}$/);
    expect(rotated.body.refresh_token).not.toBe(first);
    expect(rotated.body.id_token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);

    // What the peer stored (an opaque token's value is its id): the first consumed, the rotated one live.
    const itsTable = dynamoDbAdapterFactory({ endpoint, tableName: 'oidc-provider' });
    const refreshTokens = new itsTable.Adapter('RefreshToken');
    expect(await refreshTokens.find(first!)).toMatchObject({ consumed: expect.any(Number) });
    expect(await refreshTokens.find(rotated.body.refresh_token!)).toMatchObject({ jti: rotated.body.refresh_token });

    const reused = await refresh(first!);
    expect(reused).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    // Reuse revoked the grant: the rotated token is deleted (revokeByGrantId) and refused.
    expect(await refreshTokens.find(rotated.body.refresh_token!)).toBeUndefined();
    expect(await refresh(rotated.body.refresh_token!)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    itsTable.client.destroy();
  });
});
