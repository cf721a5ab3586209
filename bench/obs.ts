/**
 * `npm run bench:obs [-- --slices=10 --slice-ms=300 --runs=3]`: what metrics and traces cost per
 * token, side by side in one process (bench/sections/observability.ts), on its own DynamoDB Local;
 * `npm run bench` measures the same in section 7. Prints each run and the medians with their range.
 */
import { loadavg } from 'node:os';
import { startDynamoDbLocal } from '../infra/local/dynamodb-local.ts';
import { median } from './lib/stats.ts';
import { benchObservability, type ObservabilityCost } from './sections/observability.ts';

const value = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const slices = Number(value('slices') ?? 10);
const sliceMs = Number(value('slice-ms') ?? 300);
const runs = Number(value('runs') ?? 3);

const ddb = await startDynamoDbLocal({ dataDir: null });
try {
  const results: ObservabilityCost[] = [];
  for (let i = 0; i < runs; i++) {
    const r = await benchObservability({ dynamodbEndpoint: ddb.endpoint, slices, sliceMs });
    results.push(r);
    console.log(`run ${i + 1}: load ${loadavg()[0]!.toFixed(1)} ${JSON.stringify(r.variants)}`);
  }
  console.log('\nvariant   µs/token (median of runs)   ratio to off: median of run medians (min–max over every round)   stdout B/token');
  for (const v of ['off', 'emfEach', 'emfHeld', 'tracer'] as const) {
    const us = median(results.map((r) => r.variants[v].usPerToken));
    const ratio = median(results.map((r) => r.variants[v].ratioToOff.median));
    const lo = Math.min(...results.map((r) => r.variants[v].ratioToOff.min));
    const hi = Math.max(...results.map((r) => r.variants[v].ratioToOff.max));
    const bytes = median(results.map((r) => r.variants[v].stdoutBytesPerToken));
    console.log(
      `${v.padEnd(9)} ${us.toFixed(1).padStart(8)}   ${ratio.toFixed(3)} (${lo.toFixed(3)}–${hi.toFixed(3)})   ${bytes.toFixed(1)}`,
    );
  }
} finally {
  await ddb.stop();
}
