/**
 * bench/lib/cpu.ts `jvmCpuSecondsOf`: section 9 prints how much of our DynamoDB Local's CPU went to
 * its JIT compiler threads during the password latency, to say whether the database was warm. A
 * real DynamoDB Local: a JVM that has just started and served requests has compiled something,
 * and its compiler threads are a part of its CPU, not all of it. No timing is asserted.
 */
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpuSecondsOf, jvmCpuSecondsOf } from '../../bench/lib/cpu.ts';
import { JIT_QUIET_SHARE, jitQuiet } from '../../bench/lib/side-by-side.ts';
import { type DynamoDbLocal, startDynamoDbLocal } from '../../infra/local/dynamodb-local.ts';

let ddb: DynamoDbLocal;
beforeAll(async () => {
  ddb = await startDynamoDbLocal({ dataDir: null });
  const client = new DynamoDBClient({ endpoint: ddb.endpoint, region: 'local', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } });
  for (let i = 0; i < 200; i++) await client.send(new ListTablesCommand({}));
  client.destroy();
}, 200_000);
afterAll(() => ddb?.stop());

describe("a JVM's CPU and its JIT compiler's part", () => {
  it('counts the compiler threads of a JVM that served requests, as a part of all its CPU', () => {
    const { all, compiler, gc } = jvmCpuSecondsOf([ddb.pid]);
    expect(compiler).toBeGreaterThan(0);
    // The collector's threads are a part too, apart from the compiler's.
    expect(gc).toBeGreaterThanOrEqual(0);
    expect(gc + compiler).toBeLessThanOrEqual(all + 0.02);
    // Not every thread: the request threads and the SQLite queue did the work itself.
    expect(compiler).toBeLessThan(0.8 * all);
    expect(all).toBeCloseTo(cpuSecondsOf([ddb.pid]), 1);
  });

  it('finds no compiler threads in a process that is not a JVM, and nothing for a process that is gone', () => {
    const self = jvmCpuSecondsOf([process.pid]);
    expect(self.compiler).toBe(0);
    expect(self.gc).toBe(0);
    expect(self.all).toBeGreaterThan(0);
    expect(jvmCpuSecondsOf([2 ** 22 + 1])).toEqual({ all: 0, compiler: 0, gc: 0 });
  });
});

describe("a side-by-side warm-up goes on while the side's database JIT is compiling", () => {
  it('is quiet at or under the share, not above it, and always for a database that is no JVM', () => {
    expect(jitQuiet(JIT_QUIET_SHARE * 3, 3)).toBe(true);
    expect(jitQuiet(JIT_QUIET_SHARE * 3 + 0.01, 3)).toBe(false);
    expect(jitQuiet(1.2, 3)).toBe(false);
    expect(jitQuiet(0, 3)).toBe(true);
  });
});
