import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ObservabilityVariant {
  tokens: number;
  /** Token handler CPU per token in process, the per-invocation input (event, context, trace id) taken out. */
  usPerToken: number;
  /** What the handler wrote to stdout per token: the EMF lines (the token route logs nothing at INFO on success). */
  stdoutBytesPerToken: number;
  /** CPU per token ÷ `off`, per round of slices. */
  ratioToOff: { median: number; min: number; max: number };
}

export interface ObservabilityCost {
  inputUs: number;
  xrayDatagrams: number;
  variants: Record<'off' | 'emfEach' | 'emfHeld' | 'tracer', ObservabilityVariant>;
}

/**
 * Metrics and traces on the token path, side by side in one process (bench/probes/observability-cost.ts):
 * the handler's CPU per token with no metrics, EMF per invocation, EMF held and published once a
 * minute (the default), and that with Powertools Tracer; and the stdout bytes per token of each.
 */
export function benchObservability(o: { dynamodbEndpoint: string; slices: number; sliceMs: number }): Promise<ObservabilityCost> {
  const temp = mkdtempSync(join(tmpdir(), 'obs-cost-'));
  const out = join(temp, 'result.json');
  const options = {
    out,
    dynamodbEndpoint: o.dynamodbEndpoint,
    slices: o.slices,
    sliceMs: o.sliceMs,
    clientId: '0190a0a0-bbbb-7000-8000-0000000000b5',
    clientSecret: 'bench-obs-default-client-secret-0123456789abcdefghijk',
  };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/probes/observability-cost.ts'), JSON.stringify(options)], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
      // The token route's successful requests log at DEBUG: at INFO the handler's own stdout is the EMF lines.
      env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'INFO', POWERTOOLS_SERVICE_NAME: 'identity-service' },
    });
    let err = '';
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.on('exit', (code) => {
      try {
        if (code !== 0) return reject(new Error(`observability probe exited ${code}: ${err.slice(-2000)}`));
        resolve(JSON.parse(readFileSync(out, 'utf8')) as ObservabilityCost);
      } finally {
        rmSync(temp, { recursive: true, force: true });
      }
    });
  });
}

/** A container serving 10 tokens a second, publishing once a minute (the cost table's assumption). */
export const TOKENS_PER_PUBLICATION = 600;

/**
 * The cost table's metrics bytes: what one token's counts print when published at once
 * (`emfEach`), once per container-minute of TOKENS_PER_PUBLICATION tokens; without a measurement,
 * the three lines a token counts (TokensIssued, the record and key caches), about 250 B each.
 */
export function metricsLogBytes(o: ObservabilityCost | { error: string } | undefined) {
  const each = o && 'variants' in o ? o.variants.emfEach.stdoutBytesPerToken : 750;
  return { metricsBytesPerPublication: each, metricsEventsPerPublication: 3, tokensPerPublication: TOKENS_PER_PUBLICATION };
}
