/**
 * `node --import tsx bench/probes/lookup-vs-verify.ts [seconds] [items] [rounds]`: what a reference
 * (opaque) access token would cost to introspect here, beside the ES256 verification a JWT costs.
 * Both on the server core, as `npm run bench` runs a side: DynamoDB Local (in memory) and this
 * process pinned to core 0. Measured, each for `seconds`:
 * - a GetItem by a random one of `items` token records (~400 bytes, the shape a reference token's
 *   record would have), 16 in flight through the service's own document client: CPU µs per
 *   lookup of this process (SDK: request signing, HTTP, JSON, unmarshalling) and of the JVM;
 * - a synchronous `node:crypto` ES256 verification of a 300-byte signing input, one at a time.
 * The answer decides whether a lookup can be cheaper than a verification on this bench.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, verify } from 'node:crypto';
import { BatchWriteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '#shared/store/core/dynamodb-client.ts';
import { ensureTable, startDynamoDbLocal } from '../../infra/local/dynamodb-local.ts';
import { cpuSecondsOf, jvmCpuSecondsOf, selfCpuSeconds } from '../lib/cpu.ts';
import { canPin, pinProcess, pinSelf, SERVER_CORE } from '../lib/proc.ts';

const seconds = Number(process.argv[2] ?? 6);
const items = Number(process.argv[3] ?? 12_000);
const TABLE = 'lookup-probe';
const ROUNDS = Number(process.argv[4] ?? 5);

pinSelf(SERVER_CORE);
const ddb = await startDynamoDbLocal({ dataDir: null });
if (canPin()) pinProcess(ddb.pid, SERVER_CORE);
try {
  await ensureTable(ddb.endpoint, TABLE);
  const db = createDocumentClient({
    region: 'local',
    endpoint: ddb.endpoint,
    budget: { connectTimeoutMs: 1000, attemptTimeoutMs: 3000, maxAttempts: 2 },
  });
  const keys: string[] = [];
  for (let i = 0; i < items; i += 25) {
    const batch = [];
    for (let j = i; j < Math.min(items, i + 25); j++) {
      const k = createHash('sha256').update(randomBytes(32)).digest('base64url');
      keys.push(k);
      batch.push({
        PutRequest: {
          Item: {
            PK: `AT#${k}`,
            SK: 'AT',
            type: 'access_token',
            sub: '0194c5d2-0000-7000-8000-000000000000',
            client_id: '0194c5d2-0000-7000-8000-000000000001',
            aud: ['https://api.example.com'],
            scope: 'read:things write:things',
            iat: 1_790_000_000,
            exp: 1_790_003_600,
            jti: randomBytes(16).toString('base64url'),
            grant_id: '0194c5d2-0000-7000-8000-000000000002',
            tenant_id: 'default',
          },
        },
      });
    }
    await db.send(new BatchWriteCommand({ RequestItems: { [TABLE]: batch } }));
  }

  const lookups = async (untilMs: number) => {
    let n = 0;
    const worker = async () => {
      while (Date.now() < untilMs) {
        const k = keys[(Math.random() * keys.length) | 0]!;
        const r = await db.send(new GetCommand({ TableName: TABLE, Key: { PK: `AT#${k}`, SK: 'AT' } }));
        if (!r.Item) throw new Error('missing item');
        n++;
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    return n;
  };
  // Rounds until the JVM has compiled its hot path (a fresh DynamoDB Local is slow for tens of
  // seconds); the last round is the one reported.
  let n = 0;
  let jvmUs = 0;
  let ownUs = 0;
  for (let round = 1; round <= ROUNDS; round++) {
    const jvm0 = jvmCpuSecondsOf([ddb.pid]).all;
    const own0 = selfCpuSeconds();
    n = await lookups(Date.now() + seconds * 1000);
    jvmUs = ((jvmCpuSecondsOf([ddb.pid]).all - jvm0) / n) * 1e6;
    ownUs = ((selfCpuSeconds() - own0) / n) * 1e6;
    console.error(`round ${round}: ${n} lookups, ours ${ownUs.toFixed(1)} µs, DynamoDB Local ${jvmUs.toFixed(1)} µs`);
  }

  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const input = randomBytes(300);
  const signature = sign('sha256', input, { key: privateKey, dsaEncoding: 'ieee-p1363' });
  const v0 = selfCpuSeconds();
  const until = Date.now() + seconds * 1000;
  let m = 0;
  while (Date.now() < until) {
    if (!verify('sha256', input, { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature)) throw new Error('bad');
    m++;
  }
  const verifyUs = ((selfCpuSeconds() - v0) / m) * 1e6;
  console.log(
    JSON.stringify({
      lookups: n,
      lookup_cpu_us: { ours: +ownUs.toFixed(1), dynamodb_local: +jvmUs.toFixed(1), total: +(ownUs + jvmUs).toFixed(1) },
      verifications: m,
      es256_verify_cpu_us: +verifyUs.toFixed(1),
      lookup_over_verify: +((ownUs + jvmUs) / verifyUs).toFixed(2),
      jvm_pids_cpu_s: cpuSecondsOf([ddb.pid]),
    }),
  );
  db.destroy();
} finally {
  await ddb.stop();
}
