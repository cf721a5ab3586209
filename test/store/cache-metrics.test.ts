import { beforeAll, describe, expect, it } from 'vitest';
import type { Dimension, MetricName, ServiceMetrics } from '#shared/observability/service-metrics.ts';
import { createRuntime, type Runtime } from '#shared/runtime.ts';
import { cachedRbacRecordReads } from '#shared/store/token-path/rbac-records.ts';
import { userTokenReads } from '#shared/wiring/token-path/user-token-records.ts';
import { createTestTable, type TestTable } from '../support/service/dynamodb.ts';
import { testRuntime } from '../support/service/test-runtime.ts';
import { putGroup, putRole } from '../support/store/rbac-items.ts';
import { putUser } from '../support/store/user-items.ts';

/**
 * `CacheHit` / `CacheMiss` of the user-token and RBAC caches (docs/operations.md
 * "Metrics and traces"): one lookup counted per record asked for, a miss when it had to be read.
 * A container with its clock stopped, so its 1 s caches hold however loaded the machine is.
 */
let table: TestTable;
let setup: Runtime;

beforeAll(async () => {
  table = await createTestTable('cachemetrics');
  setup = testRuntime(table);
});

function counted() {
  const counts = new Map<string, number>();
  const metrics: ServiceMetrics = {
    count(name: MetricName, dimension?: Dimension) {
      const key = `${name}{${dimension?.join('=') ?? ''}}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    },
    invocationDone: () => {},
  };
  const frozen = new Date();
  const container = createRuntime(setup.config, { db: table.db, metrics, now: () => frozen });
  return { container, counts: () => Object.fromEntries(counts) };
}

describe('cache hit and miss counts', () => {
  it('user: the first check of a user reads it (miss), the next one is answered from memory (hit)', async () => {
    const user = await putUser(setup);
    const { container, counts } = counted();
    expect((await userTokenReads(container).read(user.id, undefined)).user?.id).toBe(user.id);
    expect(counts()).toEqual({ 'CacheMiss{cache=user}': 1 });
    expect((await userTokenReads(container).read(user.id, undefined)).user?.id).toBe(user.id);
    expect(counts()).toEqual({ 'CacheMiss{cache=user}': 1, 'CacheHit{cache=user}': 1 });
  });

  it('rbac: every role and group asked for counts once; a second resolution hits them all', async () => {
    const t = { db: setup.db, tableName: setup.config.tableName };
    const roles = [await putRole(t), await putRole(t)];
    const group = await putGroup(t);
    const { container, counts } = counted();
    const reads = cachedRbacRecordReads(container);
    const first = await reads.read({ roles, groups: [group] });
    expect([...first.roles.keys()].sort()).toEqual([...roles].sort());
    expect(counts()).toEqual({ 'CacheMiss{cache=rbac}': 3 });
    await reads.read({ roles, groups: [group] });
    expect(counts()).toEqual({ 'CacheMiss{cache=rbac}': 3, 'CacheHit{cache=rbac}': 3 });
  });
});
