/**
 * Section 10: RBAC (docs/rbac.md). On the metered in-process stack:
 *
 * 1. Token issuance for an `rbac_enabled` Resource, the user in 5 groups each at the bottom of a
 *    chain of 10 nested groups, every group holding a role: DynamoDB calls per token for a cold
 *    container, for a user this container has not seen (client, keys and Resource warm: the
 *    resolver's share), and warm (the next tokens within the 1 s record caches). The refresh grant
 *    is timed through the real `/token` handler on fresh runtimes (one per "container").
 * 2. Adding a role to a group of 10,000 members: the time of `POST /groups/{id}/roles` over HTTP
 *    and the write units DynamoDB reports for it (members are not touched: one transaction), then
 *    the same call again (an interrupted call re-sent: 409, nothing written), and a member's
 *    effective permissions showing the role's scope through that group.
 *
 * The records of part 1 are made through the management API; the 10,000 members of part 2 are
 * written with BatchWriteItem in the exact shapes the member-link transaction writes (user item
 * with its `group_ids` mirror and count, the link item with its GSI2 keys, the group's count),
 * because 10,000 API calls would take minutes and measure nothing this section is about.
 */
import { BatchWriteCommand, type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createRuntime, type Runtime, runWithRuntime } from '#shared/runtime.ts';
import { entity } from '#shared/store/core/entity.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { uuidv7 } from '#shared/store/core/uuidv7.ts';
import { memberLinkItem } from '#shared/store/rbac/group-links-repository.ts';
import { newUserRecord } from '#shared/store/users/user-defaults.ts';
import { handler as tokenHandler } from '../../functions/oauth/token.ts';
import { basicAuth, FORM, lambdaContext, proxyEvent } from '../lib/api-event.ts';
import type { DdbMeter, DdbUsage } from '../lib/ddb-meter.ts';
import { fetchToken } from '../lib/fixture.ts';
import { round } from '../lib/stats.ts';

export interface TokenCost {
  /** Which case (the targets find them by it). */
  id: 'cold-container' | 'user-unseen' | 'next' | 'run';
  case: string;
  requests: number;
  /** Per request. */
  ddbCalls: number;
  batchGets: number;
  rru: number;
  wru: number;
  byCommand: Record<string, number>;
}

export interface RbacBenchResult {
  shape: { chains: number; depth: number; groups: number; roles: number; scopesInToken: number };
  tokens: TokenCost[];
  addRole: {
    members: number;
    seedSeconds: number;
    ms: number;
    wru: number;
    rru: number;
    byCommand: Record<string, number>;
    status: number;
    resend: { status: number; wru: number };
    memberSeesIt: boolean;
  };
  notes: string[];
}

export interface RbacBenchOptions {
  url: string;
  runtime: Runtime;
  admin: { clientId: string; clientSecret: string; managementAudience: string };
  meter: DdbMeter;
  members: number;
  warmRequests: number;
  log: (line: string) => void;
}

const PASSWORD = 'bench-Password-for-rbac-7391';

export async function benchRbac(o: RbacBenchOptions): Promise<RbacBenchResult> {
  const mgmt = await fetchToken(o.url, o.admin.clientId, o.admin.clientSecret, { audience: o.admin.managementAudience });
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${o.url}/identity/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${mgmt}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : {} };
  };
  const must = async (p: Promise<{ status: number; body: Record<string, any> }>, status: number, what: string) => {
    const res = await p;
    if (res.status !== status) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    return res.body;
  };

  // ---- the records: an RBAC Resource, 5 chains of 10 groups, a role per group ------------------------------
  const audience = `https://rbac-bench-${uuidv7()}.example/`;
  const resource = await must(
    call('POST', '/resources', {
      resource_name: 'rbac bench',
      resource_type: 'api',
      resource_metadata: { identifier_url: audience, rbac_enabled: true },
    }),
    201,
    'resource',
  );
  const scopeIds: string[] = [];
  for (let i = 0; i < 10; i++)
    scopeIds.push((await must(call('POST', `/resources/${resource.id}/scopes`, { scope_name: `s${i}` }), 201, 'scope')).id);
  const newRole = async (scopeId: string) => {
    const role = await must(call('POST', '/roles', { role_name: `bench role ${uuidv7()}` }), 201, 'role');
    await must(
      call('POST', `/roles/${role.id}/permissions`, { permissions: [{ resource_id: resource.id, scopes: [scopeId] }] }),
      204,
      'grant',
    );
    return role.id as string;
  };
  const CHAINS = 5;
  const DEPTH = 10;
  const bottoms: string[] = [];
  let roles = 0;
  for (let c = 0; c < CHAINS; c++) {
    let parent: string | undefined;
    for (let l = 0; l < DEPTH; l++) {
      const g = (await must(call('POST', '/groups', { group_name: `bench ${c}.${l} ${uuidv7()}` }), 201, 'group')).id as string;
      await must(
        call('POST', `/groups/${g}/roles`, { roles: [await newRole(scopeIds[(c * DEPTH + l) % scopeIds.length]!)] }),
        204,
        'group role',
      );
      roles++;
      if (parent) await must(call('POST', `/groups/${parent}/groups`, { groups: [g] }), 204, 'nest');
      parent = g;
    }
    bottoms.push(parent!);
  }
  const client = await must(
    call('POST', '/clients', { client_name: 'rbac bench', client_metadata: { grant_types: ['password', 'refresh_token'] } }),
    201,
    'client',
  );
  const deep = await must(call('POST', '/users', { email: `deep-${uuidv7()}@bench.example`, password: PASSWORD }), 201, 'user');
  await must(call('POST', `/users/${deep.id}/groups`, { groups: bottoms }), 204, 'membership');
  const plain = await must(call('POST', '/users', { email: `plain-${uuidv7()}@bench.example`, password: PASSWORD }), 201, 'user');
  o.log(`rbac: ${CHAINS} chains × ${DEPTH} groups, ${roles} roles made through the API`);

  // ---- 1. tokens ------------------------------------------------------------------------------------------
  const scope = ['offline_access', ...scopeIds.map((_, i) => `s${i}`)].join(' ');
  const login = async (email: string) => {
    const res = await fetch(`${o.url}/token`, {
      method: 'POST',
      headers: { authorization: basicAuth(client.id, client.client_secret), 'content-type': FORM },
      body: new URLSearchParams({ grant_type: 'password', username: email, password: PASSWORD, scope, audience }),
    });
    const body = (await res.json()) as Record<string, string>;
    if (res.status !== 200) throw new Error(`password grant: ${res.status} ${JSON.stringify(body)}`);
    return body;
  };
  const first = await login(deep.email);
  const scopesInToken = (JSON.parse(Buffer.from(first.access_token!.split('.')[1]!, 'base64url').toString()).permissions as string[])
    .length;
  let deepRefresh = first.refresh_token!;
  let plainRefresh = (await login(plain.email)).refresh_token!;

  const container = () => createRuntime(o.runtime.config, { db: o.runtime.db });
  const refresh = async (rt: Runtime, token: string) => {
    const res = await runWithRuntime(rt, () =>
      tokenHandler(
        proxyEvent({
          method: 'POST',
          resource: '/token',
          headers: { Authorization: basicAuth(client.id, client.client_secret), 'Content-Type': FORM },
          body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token }).toString(),
        }),
        lambdaContext('functions/oauth/token'),
      ),
    );
    const body = JSON.parse(res.body) as Record<string, string>;
    if (res.statusCode !== 200) throw new Error(`refresh: ${res.statusCode} ${res.body}`);
    return body.refresh_token!;
  };
  const measure = async (id: TokenCost['id'], name: string, requests: number, run: () => Promise<void>): Promise<TokenCost> => {
    const before = o.meter.snapshot();
    for (let i = 0; i < requests; i++) await run();
    return { id, ...cost(name, requests, o.meter.since(before)) };
  };
  const tokens: TokenCost[] = [];
  // A container that has never run: signing keys, client, Resource, the user, then its groups and roles.
  const cold = container();
  tokens.push(
    await measure('cold-container', 'cold container (first request)', 1, async () => void (deepRefresh = await refresh(cold, deepRefresh))),
  );
  // A warm container (another user's refresh first), the deep user unseen: the user, then the resolver's batches.
  const warmish = container();
  plainRefresh = await refresh(warmish, plainRefresh);
  tokens.push(
    await measure(
      'user-unseen',
      'warm container, user not seen yet',
      1,
      async () => void (deepRefresh = await refresh(warmish, deepRefresh)),
    ),
  );
  tokens.push(
    await measure('next', 'warm: the next request (within 1 s)', 1, async () => void (deepRefresh = await refresh(warmish, deepRefresh))),
  );
  tokens.push(
    await measure('run', `warm: ${o.warmRequests} requests in a row (caches refresh once a second)`, o.warmRequests, async () => {
      deepRefresh = await refresh(warmish, deepRefresh);
    }),
  );
  for (const t of tokens) o.log(`rbac token: ${t.case}: ${t.ddbCalls} calls (${t.batchGets} BatchGetItem), ${t.rru} RRU, ${t.wru} WRU`);

  // ---- 2. a role added to a group of N members --------------------------------------------------------------
  const big = (await must(call('POST', '/groups', { group_name: `bench big ${uuidv7()}` }), 201, 'group')).id as string;
  const seedStart = Date.now();
  const members = await seedMembers(o.runtime.db, o.runtime.config.tableName, big, resource.tenant_id, o.members);
  const seedSeconds = (Date.now() - seedStart) / 1000;
  o.log(`rbac: ${o.members} members seeded in ${seedSeconds.toFixed(1)} s`);
  const role = await newRole(scopeIds[0]!);
  const before = o.meter.snapshot();
  const t0 = performance.now();
  const added = await call('POST', `/groups/${big}/roles`, { roles: [role] });
  const ms = performance.now() - t0;
  const usage = o.meter.since(before);
  const beforeResend = o.meter.snapshot();
  const resent = await call('POST', `/groups/${big}/roles`, { roles: [role] });
  const resendUsage = o.meter.since(beforeResend);
  const sample = members[Math.floor(members.length / 2)]!;
  const perms = await call('GET', `/users/${sample}/permissions?q=(scope_id=${scopeIds[0]})`);
  const memberSeesIt = (perms.body.items as { sources: { type: string; id?: string }[] }[] | undefined)?.some((i) =>
    i.sources.some((s) => s.type === 'group' && s.id === big),
  );
  o.log(
    `rbac: role added to a group of ${o.members}: ${added.status} in ${ms.toFixed(1)} ms, ${round(usage.wcu)} WRU; resent: ${resent.status}`,
  );

  return {
    shape: { chains: CHAINS, depth: DEPTH, groups: CHAINS * DEPTH, roles, scopesInToken },
    tokens,
    addRole: {
      members: o.members,
      seedSeconds: round(seedSeconds),
      ms: round(ms),
      wru: round(usage.wcu),
      rru: round(usage.rcu),
      byCommand: usage.byCommand,
      status: added.status,
      resend: { status: resent.status, wru: round(resendUsage.wcu) },
      memberSeesIt: memberSeesIt === true,
    },
    notes: [
      'Token costs are of the whole /token request (refresh grant): the refresh token + its user are one BatchGetItem, the rotation one TransactWriteItems; the resolver adds at most 3 BatchGetItem when its records are not cached, none when they are.',
      'The add-role time is one HTTP request to the in-process stack (management token check, the role and group reads, no-escalation check, one transaction); members are not read or written.',
    ],
  };
}

function cost(name: string, requests: number, u: DdbUsage): Omit<TokenCost, 'id'> {
  const per = (x: number) => round(x / requests);
  return {
    case: name,
    requests,
    ddbCalls: per(u.calls),
    batchGets: per(u.byCommand.BatchGetItemCommand ?? 0),
    rru: per(u.rcu),
    wru: per(u.wcu),
    byCommand: Object.fromEntries(Object.entries(u.byCommand).map(([k, v]) => [k, per(v)])),
  };
}

/** `n` users, each a member of `groupId`, as the member-link transaction leaves them; returns their ids. */
async function seedMembers(db: DynamoDBDocumentClient, tableName: string, groupId: string, tenantId: string, n: number): Promise<string[]> {
  const at = new Date().toISOString();
  const actor = '00000000-0000-0000-0000-000000000000';
  const ids: string[] = [];
  const items: Record<string, unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const id = uuidv7();
    ids.push(id);
    const user = newUserRecord(id, { tenant_id: tenantId, email: `member-${id}@bench.example`, email_verified: true }, actor, at);
    items.push({
      ...keys.user(id),
      GSI1PK: keys.collection(tenantId, 'USERS'),
      GSI1SK: id,
      ...entity('User'),
      ...user,
      // What the member-link transaction leaves on the user.
      aggregations: { ...user.aggregations, groups: 1 },
      group_ids: { [groupId]: true },
      role_ids: {},
    });
    items.push(
      memberLinkItem({
        id: uuidv7(),
        tenant_id: tenantId,
        group_id: groupId,
        user_id: id,
        created_by: actor,
        created_at: at,
        updated_by: actor,
        updated_at: at,
      }),
    );
  }
  const batches: Record<string, unknown>[][] = [];
  for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25));
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      let pending = batches[next++]!.map((Item) => ({ PutRequest: { Item } }));
      while (pending.length) {
        const out = await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
        pending = (out.UnprocessedItems?.[tableName] ?? []) as typeof pending;
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  await db.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.group(groupId),
      UpdateExpression: 'ADD aggregations.members :n',
      ExpressionAttributeValues: { ':n': n },
    }),
  );
  return ids;
}
