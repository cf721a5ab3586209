import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Duration, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import { afterAll, describe, expect, it } from 'vitest';
import { CACHES } from '#shared/observability/service-metrics.ts';
import { FUNCTION_TIMEOUTS } from '#shared/routes/function-groups.ts';
import { FALLBACK_HANDLER, INTROSPECTION_HANDLERS, PLATFORM_TRACED, TOKEN_HANDLER } from '../../infra/constructs/route-api.ts';
import { metricNamespace } from '../../infra/constructs/service-alarms.ts';
import { ServiceFunction } from '../../infra/constructs/service-function.ts';
import { quietBundlingNotices } from '../../infra/quiet-bundling-notices.ts';
import { arnRef, roleStatements, synth } from './support.ts';

type Json = Record<string, any>;

const { template, monitoring } = synth({ stage: 'dev' });
const functions = Object.values(template.findResources('AWS::Lambda::Function')).map((f) => f.Properties as Json);

describe('metrics and traces in the template (docs/operations.md "Metrics and traces")', () => {
  it('every function has active X-Ray tracing and the stage has X-Ray tracing', () => {
    expect(functions.length).toBeGreaterThan(50);
    for (const f of functions) expect([f.Description, f.TracingConfig]).toEqual([f.Description, { Mode: 'Active' }]);
    template.hasResourceProperties('AWS::ApiGateway::Stage', { StageName: 'dev', TracingEnabled: true });
  });

  it('every function role may write X-Ray segments, and nothing else on "*"', () => {
    const roleIds = new Set(functions.map((f) => arnRef(f.Role)!));
    for (const roleId of roleIds) {
      const statements = roleStatements(template, roleId);
      const xray = statements.find((s) => [s.Action].flat().includes('xray:PutTraceSegments'));
      expect(xray).toMatchObject({ Effect: 'Allow', Resource: '*' });
      expect([xray!.Action].flat().sort()).toEqual(['xray:PutTelemetryRecords', 'xray:PutTraceSegments']);
      for (const s of statements.filter((x) => x.Resource === '*'))
        expect([s.Action].flat().every((a) => a.startsWith('xray:'))).toBe(true);
    }
  });

  it("every function publishes its metrics to the stage's namespace with the service name; the Tracer is on", () => {
    for (const f of functions) {
      const env = f.Environment.Variables as Record<string, unknown>;
      expect([f.Description, env.POWERTOOLS_METRICS_NAMESPACE, env.POWERTOOLS_SERVICE_NAME, env.POWERTOOLS_TRACE_ENABLED]).toEqual([
        f.Description,
        metricNamespace('dev'),
        'identity-service',
        undefined,
      ]);
    }
    expect(metricNamespace('dev')).toBe('IdentityService/dev');
  });

  it('a stage with tracing off: no active tracing, no stage tracing, and the Tracer turned off', () => {
    const { template: off } = synth({ stage: 'dev', settings: { tracing: false } });
    const fns = Object.values(off.findResources('AWS::Lambda::Function')).map((f) => f.Properties as Json);
    for (const f of fns) {
      expect(f.TracingConfig).toBeUndefined();
      expect(f.Environment.Variables.POWERTOOLS_TRACE_ENABLED).toBe('false');
    }
    off.hasResourceProperties('AWS::ApiGateway::Stage', { StageName: 'dev', TracingEnabled: false });
  });

  it('the hot path and the 404/405 function are traced by Lambda only; the list is the one the construct reads', () => {
    expect([...PLATFORM_TRACED].sort()).toEqual([FALLBACK_HANDLER, TOKEN_HANDLER, ...INTROSPECTION_HANDLERS].sort());
  });

  it('the dashboard graphs tokens issued, failed logins, 429s and 503s, cache hit ratios and cold starts', () => {
    const body = JSON.stringify(Object.values(monitoring.findResources('AWS::CloudWatch::Dashboard'))[0]!.Properties.DashboardBody);
    for (const title of [
      'Tokens issued by grant',
      'Failed logins, 429s and 503s by route group',
      'Cache hit ratio',
      'Cold starts by function',
    ]) {
      expect(body).toContain(title);
    }
    for (const metric of ['TokensIssued', 'LoginsFailed', 'Throttled', 'ServiceUnavailable', 'CacheHit', 'CacheMiss', 'ColdStart']) {
      expect(body).toContain(metric);
    }
    expect(body).toContain('IdentityService/dev');
    // One hit-ratio line per cache the functions count (service-metrics.ts CACHES).
    for (const cache of Object.keys(CACHES)) expect(body).toContain(`\\"label\\":\\"${cache}\\"`);
  });
});

describe('the X-Ray SDK is bundled only where the function is traced with it (real esbuild bundling)', () => {
  const out = mkdtempSync(join(tmpdir(), 'obs-bundles-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  /** Synthesizes one function with real bundling and returns its bundled code. */
  const bundleOf = (handlerModule: string, tracer: 'sdk' | 'platform'): string => {
    quietBundlingNotices();
    const app = new App({ outdir: join(out, `${tracer}-${handlerModule.replaceAll('/', '-')}`) });
    const stack = new Stack(app, 'Bundles', { env: { account: '123456789012', region: 'eu-west-1' } });
    new ServiceFunction(stack, 'Fn', {
      handlerModule,
      role: new iam.Role(stack, 'Role', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') }),
      environment: {},
      logGroup: new logs.LogGroup(stack, 'Logs'),
      timeout: Duration.seconds(FUNCTION_TIMEOUTS.oauth),
      tracing: true,
      tracer,
    });
    const assembly = app.synth();
    const assetDir = readdirSync(assembly.directory).find((d) => d.startsWith('asset.'))!;
    return readFileSync(join(assembly.directory, assetDir, 'index.mjs'), 'utf8');
  };

  it('the token function carries no X-Ray SDK; a management function carries Powertools Tracer', () => {
    const token = bundleOf(TOKEN_HANDLER, 'platform');
    const managed = bundleOf('functions/clients/get-client', 'sdk');
    // Strings of the X-Ray SDK and of Powertools Tracer that minification keeps.
    for (const marker of ['AWS_XRAY_DAEMON_ADDRESS', 'POWERTOOLS_TRACER_CAPTURE_RESPONSE']) {
      expect(managed).toContain(marker);
      expect(token).not.toContain(marker);
    }
  }, 120_000);
});
