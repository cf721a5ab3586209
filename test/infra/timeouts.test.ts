import { describe, expect, it } from 'vitest';
import { worstCaseMs } from '#shared/aws/dependency-budget.ts';
import { loadConfig } from '#shared/config.ts';
import { HEALTH_KEY_WAIT_MS, HEALTH_PROBE_TIMEOUT_MS } from '#shared/health/check-health.ts';
import { TIMEOUT_RESERVE_MS } from '#shared/http/http-handler.ts';
import { FUNCTION_TIMEOUTS, routeGroup } from '#shared/routes/function-groups.ts';
import { handlerModules, ROUTES } from '#shared/routes/route-table.ts';
import { ROTATE_KEYS_HANDLER } from '../../infra/constructs/key-rotation.ts';
import { FALLBACK_HANDLER } from '../../infra/constructs/route-api.ts';
import { BOOTSTRAP_HANDLER } from '../../infra/constructs/stage-bootstrap.ts';
import { functionIds, synth } from './support.ts';

/** API Gateway REST APIs end an integration after 29 s and answer 504 with their own body. */
const GATEWAY_LIMIT_S = 29;

const { template, monitoring } = synth();
const ids = functionIds(template);
const resources = template.toJSON().Resources as Record<string, { Properties: { Timeout: number } }>;
const timeoutOf = (handlerModule: string) => resources[ids.get(handlerModule)!]!.Properties.Timeout;

describe('function timeouts per route group', () => {
  it('each route group has its own explicit timeout: OAuth short, management longer, health and the fallback shortest', () => {
    expect(timeoutOf('functions/oauth/token')).toBe(6);
    expect(timeoutOf('functions/oauth/introspect')).toBe(6);
    expect(timeoutOf('functions/oauth/jwks')).toBe(6);
    expect(timeoutOf('functions/clients/create-client')).toBe(12);
    expect(timeoutOf('functions/resources/list-resources')).toBe(12);
    expect(timeoutOf('functions/health/get-health')).toBe(3);
    expect(timeoutOf(FALLBACK_HANDLER)).toBe(3);
    for (const module of handlerModules()) {
      const group = routeGroup(ROUTES.find((r) => r.handler === module)!);
      expect(timeoutOf(module), module).toBe(FUNCTION_TIMEOUTS[group]);
    }
  });

  it('bootstrap and rotation, which no caller waits on, have their own longer ones, and longer dependency budgets that fit inside', () => {
    expect(timeoutOf(BOOTSTRAP_HANDLER)).toBe(120);
    expect(timeoutOf(ROTATE_KEYS_HANDLER)).toBe(60);
    const envOf = (module: string) =>
      (resources[ids.get(module)!]!.Properties as unknown as { Environment: { Variables: Record<string, string> } }).Environment.Variables;
    for (const module of [BOOTSTRAP_HANDLER, ROTATE_KEYS_HANDLER]) {
      const env = envOf(module);
      expect(env).toMatchObject({ KMS_ATTEMPT_TIMEOUT_MS: '10000', KMS_MAX_ATTEMPTS: '3', DYNAMODB_ATTEMPT_TIMEOUT_MS: '5000' });
      const { budgets } = loadConfig({
        TABLE_NAME: 't',
        ISSUER: 'https://id.example',
        KEY_MODE: 'local',
        LOCAL_MASTER_KEY_FILE: '/tmp/k',
        ...Object.fromEntries(
          Object.entries(env).filter(([k]) => /^(DYNAMODB|KMS)_(CONNECT_TIMEOUT_MS|ATTEMPT_TIMEOUT_MS|MAX_ATTEMPTS)$/.test(k)),
        ),
      });
      expect(worstCaseMs(budgets.kms) + worstCaseMs(budgets.dynamodb)).toBeLessThan(timeoutOf(module) * 1000);
    }
    // Request-path functions keep the defaults.
    expect(envOf('functions/oauth/token')).not.toHaveProperty('KMS_ATTEMPT_TIMEOUT_MS');
  });

  it('every request-path function fits inside API Gateway 29 s, and one stalled DynamoDB call plus one KMS call fit inside each with room to answer', () => {
    const { budgets } = loadConfig({ TABLE_NAME: 't', ISSUER: 'https://id.example', KEY_MODE: 'local', LOCAL_MASTER_KEY_FILE: '/tmp/k' });
    const worst = worstCaseMs(budgets.dynamodb) + worstCaseMs(budgets.kms) + TIMEOUT_RESERVE_MS;
    for (const module of [...handlerModules(), FALLBACK_HANDLER]) {
      expect(timeoutOf(module), module).toBeLessThan(GATEWAY_LIMIT_S);
      if (module !== FALLBACK_HANDLER && !module.startsWith('functions/health/'))
        expect(timeoutOf(module) * 1000, module).toBeGreaterThan(worst);
    }
    // A stall is a 503 well before the OAuth functions' timeout: the default budget of one call.
    expect(worstCaseMs(budgets.dynamodb)).toBeLessThanOrEqual(2300);
  });

  it('health answers within about a second: its key wait and probe timeout, far inside its function timeout', () => {
    expect(HEALTH_KEY_WAIT_MS + HEALTH_PROBE_TIMEOUT_MS).toBeLessThanOrEqual(1000);
    expect(timeoutOf('functions/health/get-health') * 1000).toBeGreaterThan(
      HEALTH_KEY_WAIT_MS + HEALTH_PROBE_TIMEOUT_MS + TIMEOUT_RESERVE_MS,
    );
  });
});

describe('dependency-timeout alarm per function group', () => {
  const filters = Object.values(monitoring.findResources('AWS::Logs::MetricFilter')).map((f) => f.Properties);
  const alarms = Object.values(monitoring.findResources('AWS::CloudWatch::Alarm')).map((a) => a.Properties);

  it("a metric filter on the function logs counts the handlers' timeout lines, by group", () => {
    const filter = filters.find((f) => f.MetricTransformations[0].MetricName === 'DependencyTimeouts')!;
    expect(filter.FilterPattern).toBe('{ ($.message = "dependency unavailable") && ($.timeout IS TRUE) }');
    expect(filter.MetricTransformations[0]).toMatchObject({
      MetricNamespace: 'IdentityService/dev',
      MetricValue: '1',
      Dimensions: [{ Key: 'FunctionGroup', Value: '$.function_group' }],
    });
    expect(JSON.stringify(filter.LogGroupName)).toMatch(/FunctionLogs/);
  });

  it('one alarm per route group on that metric, threshold from the stage config', () => {
    for (const group of ['oauth', 'management', 'health']) {
      expect(alarms).toContainEqual(
        expect.objectContaining({
          Namespace: 'IdentityService/dev',
          MetricName: 'DependencyTimeouts',
          Dimensions: [{ Name: 'FunctionGroup', Value: group }],
          Statistic: 'Sum',
          Threshold: 5,
          ComparisonOperator: 'GreaterThanThreshold',
          TreatMissingData: 'notBreaching',
        }),
      );
    }
    const { monitoring: t } = synth({ settings: { alarms: { dependencyTimeouts: 0 } } });
    const strict = Object.values(t.findResources('AWS::CloudWatch::Alarm')).filter((a) => a.Properties.MetricName === 'DependencyTimeouts');
    expect(strict.map((a) => a.Properties.Threshold)).toEqual([0, 0, 0]);
  });
});
