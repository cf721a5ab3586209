import { join, resolve } from 'node:path';
import type { EventSpec } from '../lib/api-event.ts';
import type { DdbUsage } from '../lib/ddb-meter.ts';
import { LOAD_CORE, runNode } from '../lib/proc.ts';
import { round } from '../lib/stats.ts';

const ROOT = resolve(import.meta.dirname, '../..');

export interface OperationCost {
  operation: string;
  /** First request of a fresh container. */
  cold: {
    ddbCalls: number;
    reads: number;
    rru: number;
    wru: number;
    kmsCalls: number;
    byCommand: Record<string, number>;
    kms: Record<string, number>;
  } | null;
  /** Mean per request once warm. */
  warm: { ddbCalls: number; reads: number; rru: number; wru: number; kmsCalls: number; requests: number } | null;
  status: number | null;
  note?: string;
  error?: string;
}

interface ProbeOutput {
  cold: { ddb: DdbUsage; kms: Record<string, number>; status: number };
  warm: {
    requests: number;
    ddb: DdbUsage;
    ddbCallsPerRequest: number;
    readsPerRequest: number;
    rruPerRequest: number;
    kmsPerRequest: number;
    status: number;
  };
  coldBody?: string;
}

/** Runs the first-request probe for one operation in a fresh process. */
export async function probeOperation(o: {
  operation: string;
  handler: string;
  event: EventSpec;
  warm: number;
  env: Record<string, string>;
}): Promise<OperationCost> {
  try {
    const { stdout } = await runNode(
      [
        '--import',
        'tsx',
        join(ROOT, 'bench/probes/first-request.ts'),
        JSON.stringify({ env: o.env, handler: o.handler, event: o.event, warm: o.warm }),
      ],
      {
        core: LOAD_CORE,
        timeoutMs: 60_000,
      },
    );
    const line = stdout
      .split('\n')
      .reverse()
      .find((l) => l.startsWith('BENCH_RESULT '));
    if (!line) throw new Error(`no result line: ${stdout.slice(-300)}`);
    const r = JSON.parse(line.slice(13)) as ProbeOutput;
    const kmsCold = Object.values(r.cold.kms).reduce((a, b) => a + b, 0);
    return {
      operation: o.operation,
      cold: {
        ddbCalls: r.cold.ddb.calls,
        reads: r.cold.ddb.reads,
        rru: round(r.cold.ddb.rcu),
        wru: round(r.cold.ddb.wcu),
        kmsCalls: kmsCold,
        byCommand: r.cold.ddb.byCommand,
        kms: r.cold.kms,
      },
      warm: {
        ddbCalls: round(r.warm.ddbCallsPerRequest),
        reads: round(r.warm.readsPerRequest),
        rru: round(r.warm.rruPerRequest),
        wru: round(r.warm.ddb.wcu / Math.max(1, r.warm.requests)),
        kmsCalls: round(r.warm.kmsPerRequest),
        requests: r.warm.requests,
      },
      status: r.warm.status,
      ...(r.coldBody ? { note: `cold answer: ${r.cold.status} ${r.coldBody}` } : {}),
    };
  } catch (err) {
    return { operation: o.operation, cold: null, warm: null, status: null, error: (err as Error).message.slice(0, 400) };
  }
}
