import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { backfillRevocationLog } from '#shared/bootstrap/backfill-revocation-log.ts';
import { verifierDigest } from '#shared/records/revocation-ref.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { cachedRevocations } from '#shared/store/revocations/cached-revocations.ts';
import { followedRevocations } from '#shared/store/revocations/followed-revocations.ts';
import { revocationLogItem, revocationsRepository } from '#shared/store/revocations/revocations-repository.ts';
import { createTestTable } from '../support/service/dynamodb.ts';

const ref = (jti: string, clientId = 'client-1', verifier = 'key:kid-1') => ({ jti, clientId, verifier });

/** The revocation list of one container that reads the log every second, on the test's clock. */
const followOneSecond = (table: ReturnType<typeof revocationsRepository>, clock: () => number) =>
  followedRevocations(table, cachedRevocations(table, 1000, clock), { refreshMs: 1000, overlapMs: 3000, horizonMs: 86_400_000, clock });

/** One container's revocation list over `tableName`, on a clock the test moves, counting its DynamoDB calls. */
async function containers(prefix: string, { migrated = true } = {}) {
  const { db, tableName } = await createTestTable(prefix);
  let clock = Date.now();
  const now = () => new Date(clock);
  if (migrated) await backfillRevocationLog(db, tableName, now);
  const container = () => {
    const calls: string[] = [];
    const counted = {
      send: (command: { constructor: { name: string } }) => {
        calls.push(command.constructor.name);
        return db.send(command as never);
      },
    } as unknown as typeof db;
    const table = revocationsRepository(counted, tableName, now);
    const list = followOneSecond(table, () => clock);
    return { list, calls };
  };
  return { db, tableName, container, advance: (ms: number) => (clock += ms), now };
}

describe('each container follows the revocation log (docs/tokens.md "Revocation checks and their cost")', () => {
  it('a revocation made elsewhere is seen within the refresh interval, with one Query and no read per token', async () => {
    const { container, advance } = await containers('follow');
    const a = container();
    const b = container();
    const exp = new Date(Date.now() + 3_600_000);

    expect(await b.list.isRevoked(ref('t-1'))).toBe(false);
    expect(b.calls).toEqual(['GetCommand', 'QueryCommand']); // completeness marker, then the whole log once
    for (let i = 0; i < 50; i++) expect(await b.list.isRevoked(ref(`never-seen-${i}`))).toBe(false);
    expect(b.calls).toHaveLength(2);

    expect(await a.list.revoke(ref('t-1'), exp)).toBe('revoked');
    expect(await a.list.isRevoked(ref('t-1'))).toBe(true); // the revoking container at once
    expect(await b.list.isRevoked(ref('t-1'))).toBe(false); // within b's second
    advance(1000);
    expect(await b.list.isRevoked(ref('t-1'))).toBe(true);
    expect(await b.list.isRevoked(ref('t-2'))).toBe(false);
    expect(b.calls).toEqual(['GetCommand', 'QueryCommand', 'QueryCommand']);

    // A container started later reads it with its first read.
    const c = container();
    expect(await c.list.isRevoked(ref('t-1'))).toBe(true);
  });

  it('stays bound to the verifier and the client (docs/contract.md §8): a forged token with the same jti revokes only itself', async () => {
    const { container, advance } = await containers('follow-bound');
    const attacker = container();
    const observer = container();
    const exp = new Date(Date.now() + 3_600_000);
    expect(await observer.list.isRevoked(ref('j', 'victim'))).toBe(false);
    expect(await attacker.list.revoke(ref('j', 'attacker', 'resource:t1:https://mine.example/'), exp)).toBe('revoked');
    advance(1000);
    expect(await observer.list.isRevoked(ref('j', 'victim', 'key:kid-1'))).toBe(false);
    expect(await observer.list.isRevoked(ref('j', 'attacker', 'key:kid-1'))).toBe(false);
    expect(await observer.list.isRevoked(ref('j', 'victim', 'resource:t1:https://mine.example/'))).toBe(false);
    expect(await observer.list.isRevoked(ref('j', 'attacker', 'resource:t1:https://mine.example/'))).toBe(true);
    // A second client cannot take the jti over under that verifier; nothing is logged for it.
    expect(await attacker.list.revoke(ref('j', 'victim', 'resource:t1:https://mine.example/'), exp)).toBe('conflict');
    advance(1000);
    expect(await observer.list.isRevoked(ref('j', 'victim', 'resource:t1:https://mine.example/'))).toBe(false);
  });

  it('a revocation stored late (its write took longer than the gap between two reads) is still found: reads overlap', async () => {
    const { db, tableName, container, advance, now } = await containers('follow-late');
    const b = container();
    expect(await b.list.isRevoked(ref('late'))).toBe(false);
    // Stamped 2 s before b's read began, stored only now.
    const stamp = new Date(now().getTime() - 2000);
    await db.send(
      new PutCommand({ TableName: tableName, Item: revocationLogItem(ref('late'), stamp, Math.floor(Date.now() / 1000) + 3600) }),
    );
    advance(1000);
    expect(await b.list.isRevoked(ref('late'))).toBe(true);
  });

  it('an entry past its ttl no longer revokes (its token has expired anyway)', async () => {
    const { container, advance } = await containers('follow-ttl');
    const a = container();
    const b = container();
    expect(await a.list.revoke(ref('short'), new Date(Date.now() + 5000))).toBe('revoked');
    expect(await b.list.isRevoked(ref('short'))).toBe(true);
    advance(6000);
    expect(await b.list.isRevoked(ref('short'))).toBe(false);
    expect(await a.list.isRevoked(ref('short'))).toBe(false);
  });

  it('until bootstrap has copied the older revocations into the log, every check reads the token entries (the log is not trusted)', async () => {
    const { db, tableName, container, advance, now } = await containers('follow-unmigrated', { migrated: false });
    const ttl = Math.floor(Date.now() / 1000) + 3600;
    // Revocations made before the log: a bound entry and one of the unbound format.
    await db.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          ...keys.revokedToken('old-bound', verifierDigest(ref('old-bound'))),
          type: 'RevokedToken',
          schema_version: 2,
          verifier: 'key:kid-1',
          client_id: 'client-1',
          ttl,
        },
      }),
    );
    await db.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...keys.revokedTokenUnbound('old-unbound'), type: 'RevokedToken', schema_version: 1, client_id: 'client-1', ttl },
      }),
    );
    const a = container();
    expect(await a.list.isRevoked(ref('old-bound'))).toBe(true);
    expect(await a.list.isRevoked(ref('old-unbound'))).toBe(true);
    expect(await a.list.isRevoked(ref('old-unbound', 'someone-else'))).toBe(false);
    expect(a.calls.filter((c) => c === 'QueryCommand')).toHaveLength(3); // the per-token reads
    expect(a.calls).not.toContain('ScanCommand');

    // Bootstrap copies them (once) and marks the log complete; a container then answers from the log.
    expect(await backfillRevocationLog(db, tableName, now)).toEqual({ copied: 2 });
    expect(await backfillRevocationLog(db, tableName, now)).toEqual({ copied: 0, skipped: true });
    advance(1000);
    const b = container();
    expect(await b.list.isRevoked(ref('old-bound'))).toBe(true);
    expect(await b.list.isRevoked(ref('old-unbound'))).toBe(true);
    expect(await b.list.isRevoked(ref('old-unbound', 'someone-else'))).toBe(false);
    expect(await b.list.isRevoked(ref('old-bound', 'client-1', 'key:kid-2'))).toBe(false);
    expect(b.calls).toEqual(['GetCommand', 'QueryCommand']);
    // a learns that the log is complete at its next read and stops reading per token.
    advance(1000);
    const before = a.calls.length;
    expect(await a.list.isRevoked(ref('fresh-1'))).toBe(false);
    expect(await a.list.isRevoked(ref('fresh-2'))).toBe(false);
    expect(a.calls.slice(before)).toEqual(['GetCommand', 'QueryCommand']);
  });

  it('in the last quarter of the interval ONE check reads the log; the checks beside it answer from memory instead of waiting for that read', async () => {
    const { db, tableName } = await createTestTable('follow-ahead');
    let clock = Date.now();
    await backfillRevocationLog(db, tableName, () => new Date(clock));
    let gate: Promise<void> | undefined;
    let queries = 0;
    const gated = {
      send: async (command: { constructor: { name: string } }) => {
        if (command.constructor.name === 'QueryCommand') {
          queries++;
          await gate;
        }
        return db.send(command as never);
      },
    } as unknown as typeof db;
    const table = revocationsRepository(gated, tableName, () => new Date(clock));
    const list = followOneSecond(table, () => clock);
    expect(await list.isRevoked(ref('t-0'))).toBe(false);
    expect(queries).toBe(1);

    let open!: () => void;
    gate = new Promise((r) => (open = r));
    clock += 800; // 200 ms before the next read is due
    const leader = list.isRevoked(ref('t-1'));
    let leaderDone = false;
    void leader.then(() => (leaderDone = true));
    // While the leader's read is held, 20 checks beside it answer at once, from memory.
    expect(await Promise.all(Array.from({ length: 20 }, (_, i) => list.isRevoked(ref(`side-${i}`))))).toEqual(Array(20).fill(false));
    expect(leaderDone).toBe(false);
    expect(queries).toBe(2);
    // Past the interval, a check waits for the read in flight (the bound holds) and makes none of its own.
    clock += 200;
    const late = list.isRevoked(ref('t-2'));
    let lateDone = false;
    void late.then(() => (lateDone = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(lateDone).toBe(false);
    open();
    expect(await leader).toBe(false);
    expect(await late).toBe(false);
    expect(queries).toBe(2);
  });

  it('a failed read of the log fails the check (never "not revoked") and the next check reads again', async () => {
    const { db, tableName } = await createTestTable('follow-fail');
    await backfillRevocationLog(db, tableName, () => new Date());
    let fail = true;
    const flaky = {
      send: (command: unknown) =>
        fail ? Promise.reject(Object.assign(new Error('timeout'), { name: 'TimeoutError' })) : db.send(command as never),
    } as unknown as typeof db;
    const table = revocationsRepository(flaky, tableName, () => new Date());
    const list = followedRevocations(table, cachedRevocations(table, 1000), { refreshMs: 1000, overlapMs: 3000, horizonMs: 86_400_000 });
    await expect(list.isRevoked(ref('x'))).rejects.toMatchObject({ status: 503 });
    fail = false;
    expect(await list.isRevoked(ref('x'))).toBe(false);
  });
});
