/**
 * `taskset -c 0 node --import tsx bench/probes/password-timeline.ts [warm-up=1000]`: when each step
 * of one password grant starts and ends, in ms from the request's start (medians of 30 grants,
 * 20 ms apart): every DynamoDB call (`Get>`/`Get<`, `Update>`...), the argon2id hash (`hash>`,
 * `hash<`) and the token signatures (`sign>`). The local stack of `npm start` runs in this
 * process; under `taskset -c 0` it and its DynamoDB Local share one core, as in `npm run bench`.
 * `node:crypto`'s `argon2` and `sign` are wrapped before any service module is loaded
 * (`syncBuiltinESMExports`), so the service's own imports see the wrappers. docs/benchmarks.md
 * "Password grant: three stages" reads it.
 */
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';

const events: [string, number][] = [];
let t0 = 0;
const mark = (name: string) => events.push([name, performance.now() - t0]);

type Callback = (err: Error | null, key: Buffer) => void;
const argon2 = crypto.argon2 as unknown as (alg: string, params: unknown, cb: Callback) => void;
const sign = crypto.sign as unknown as (...args: unknown[]) => Buffer;
Object.assign(crypto, {
  argon2: (alg: string, params: unknown, cb: Callback) => {
    mark('hash>');
    argon2(alg, params, (err, key) => {
      mark('hash<');
      cb(err, key);
    });
  },
  sign: (...args: unknown[]) => {
    mark('sign>');
    return sign(...args);
  },
});
syncBuiltinESMExports();

const { startProbeStack } = await import('../lib/probe-stack.ts');
const { PASSWORD_WARMUP_GRANTS, passwordGrant } = await import('../sections/user-flows.ts');
const { median } = await import('../lib/stats.ts');

const warmUp = Number(process.argv[2] ?? PASSWORD_WARMUP_GRANTS);
const { stack, userFixture } = await startProbeStack('password-timeline');
const db = stack.runtime.db as unknown as { send: (command: object, ...rest: unknown[]) => Promise<unknown> };
const send = db.send.bind(db);
db.send = async (command, ...rest) => {
  const name = command.constructor.name.replace(/Command$/, '').replace(/Item$/, '');
  mark(`${name}>`);
  try {
    return await send(command, ...rest);
  } finally {
    mark(`${name}<`);
  }
};
try {
  const f = await userFixture('timeline');
  const grant = () => passwordGrant(f, 'openid');
  for (let i = 0; i < warmUp; i++) await grant();
  const runs: [string, number][][] = [];
  for (let i = 0; i < 30; i++) {
    events.length = 0;
    t0 = performance.now();
    await grant();
    mark('answer');
    runs.push([...events]);
    await new Promise((r) => setTimeout(r, 20));
  }
  // The steps of the first grant, and the median time of each over the grants with the same steps.
  const steps = runs[0]!.map(([name]) => name);
  const alike = runs.filter((r) => r.map(([name]) => name).join() === steps.join());
  console.log(`${alike.length} of ${runs.length} grants in this order; median ms from the request's start:`);
  console.log(steps.map((name, k) => `${name} ${median(alike.map((r) => r[k]![1])).toFixed(1)}`).join(' | '));
} finally {
  await stack.stop();
}
