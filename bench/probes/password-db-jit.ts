/**
 * `taskset -c 0 node --import tsx bench/probes/password-db-jit.ts [windows=20] [samples=100]`:
 * how the password latency changes while a fresh DynamoDB Local compiles the paths a login takes.
 * The local stack of `npm start` in this process, with its own DynamoDB Local; under `taskset -c 0`
 * both share one core, as the server core of `npm run bench` does. Prints, per window of `samples`
 * (one hash, then one password grant with scope `openid`): grant median ÷ hash median, and the
 * JVM's CPU per sample split into its JIT compiler threads and the rest (bench/lib/cpu.ts
 * `jvmCpuSecondsOf`). docs/benchmarks.md "Password grant: the database's JIT" has its table.
 */
import { hashPassword } from '#shared/crypto/password-hash.ts';
import { databaseProcesses, jvmCpuSecondsOf } from '../lib/cpu.ts';
import { logsToDevNull } from '../lib/logs-to-dev-null.ts';
import { startProbeStack } from '../lib/probe-stack.ts';
import { median } from '../lib/stats.ts';
import { PASSWORD, passwordGrant } from '../sections/user-flows.ts';

const [windows, samples] = [Number(process.argv[2] ?? 20), Number(process.argv[3] ?? 100)];
const report = logsToDevNull();
const { stack, userFixture } = await startProbeStack('password-db-jit');
try {
  const f = await userFixture('jit');
  const db = databaseProcesses(process.pid);
  const ms = (seconds: number) => ((seconds * 1000) / samples).toFixed(2);
  for (let w = 1; w <= windows; w++) {
    const before = jvmCpuSecondsOf(db);
    const hashes: number[] = [];
    const grants: number[] = [];
    for (let i = 0; i < samples; i++) {
      let t = performance.now();
      await hashPassword(PASSWORD);
      hashes.push(performance.now() - t);
      t = performance.now();
      await passwordGrant(f, 'openid');
      grants.push(performance.now() - t);
    }
    const after = jvmCpuSecondsOf(db);
    const compiler = after.compiler - before.compiler;
    report(
      `grants ${(w - 1) * samples + 1}-${w * samples}: ratio ${(median(grants) / median(hashes)).toFixed(3)} ` +
        `(grant ${median(grants).toFixed(1)} ms, hash ${median(hashes).toFixed(1)} ms); ` +
        `JVM per sample: compiler ${ms(compiler)} ms, rest ${ms(after.all - before.all - compiler)} ms\n`,
    );
  }
} finally {
  await stack.stop();
}
process.exit(0);
