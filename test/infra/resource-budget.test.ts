import { NestedStack, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it, vi } from 'vitest';
import type { Route } from '#shared/routes/route.ts';
import { handlerModules, ROUTES } from '#shared/routes/route-table.ts';
import { MAX_RESOURCES, resourceCountOf } from '../../infra/constructs/identity-service-stack.ts';
import { apiAreaOf } from '../../infra/constructs/route-areas.ts';
import { apiMethods, synth } from './support.ts';
import { syntheticRoutes } from './synthetic-routes.ts';

// Synthesizing a stack takes seconds, many more on a busy CI machine.
vi.setConfig({ testTimeout: 240_000 });

/** Room every stack keeps for growth: at most 80% of CloudFormation's 500. */
const BUDGET = MAX_RESOURCES * 0.8;
/** CloudFormation's quotas on a stack's parameters and outputs (nested stacks pass references through them). */
const MAX_PARAMETERS = 200;
const MAX_OUTPUTS = 200;

/** Resource, parameter and output counts of the stage stack and each nested stack. */
function budget(stack: Stack) {
  const stacks = [stack, ...stack.node.findAll().filter((c): c is NestedStack => NestedStack.isNestedStack(c))];
  return stacks.map((s) => {
    const json = Template.fromStack(s).toJSON();
    return {
      name: s === stack ? s.stackName : s.node.id,
      resources: resourceCountOf(s),
      parameters: Object.keys(json.Parameters ?? {}).length,
      outputs: Object.keys(json.Outputs ?? {}).length,
    };
  });
}

/** Prints the numbers so a CI log shows how much room is left. */
function report(label: string, routes: readonly Route[], rows: ReturnType<typeof budget>) {
  const detail = rows.map((r) => `${r.name} ${r.resources}`).join(', ');
  console.info(
    `[resource budget] ${label}: ${routes.length} routes, ${handlerModules(routes).length} handlers → ${detail} (of ${MAX_RESOURCES} each)`,
  );
}

function expectWithinBudget(rows: ReturnType<typeof budget>) {
  for (const r of rows) {
    expect(r.resources, r.name).toBeLessThanOrEqual(BUDGET);
    expect(r.parameters, r.name).toBeLessThan(MAX_PARAMETERS);
    expect(r.outputs, r.name).toBeLessThan(MAX_OUTPUTS);
  }
}

// The worst stage: alarm topic, custom domain with DNS record, kms-sign key, WAF.
const WORST = {
  keyMode: 'kms-sign',
  alarms: { emails: ['ops@example.com'] },
  customDomain: {
    domainName: 'id.example.com',
    certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/abc-123',
    hostedZoneId: 'Z123456ABCDEFG',
    hostedZoneName: 'example.com',
  },
};

describe('CloudFormation resource budget: 500 per stack, every stack kept at 80% or less', () => {
  it('the real route table', () => {
    const { stack } = synth({ stage: 'prod', settings: WORST });
    const rows = budget(stack);
    report('ROUTES', ROUTES, rows);
    expectWithinBudget(rows);
  });

  it('the full product (~150 routes, 120 handlers): every stack within budget', () => {
    const routes = syntheticRoutes(150, 120);
    expect(routes).toHaveLength(150);
    expect(handlerModules(routes)).toHaveLength(120);
    const { stack } = synth({ stage: 'prod', routes, settings: WORST });
    const rows = budget(stack);
    report('synthetic 150', routes, rows);
    expectWithinBudget(rows);
  });

  it('room to grow: twice that (300 routes, 220 handlers) still fits', () => {
    const routes = syntheticRoutes(300, 220);
    const { stack } = synth({ stage: 'prod', routes, settings: WORST });
    const rows = budget(stack);
    report('synthetic 300', routes, rows);
    for (const r of rows) expect(r.resources, r.name).toBeLessThan(MAX_RESOURCES);
  });

  it('resources and methods sit in one nested stack per API area; functions stay in the stage stack', () => {
    const synthesized = synth({ stage: 'dev' });
    const { stack, template } = synthesized;
    const areas = new Set(ROUTES.map((r) => apiAreaOf(r.path)));
    expect([...stack.api.areas.keys()].sort()).toEqual([...areas].sort());
    // The stage stack keeps only the shared path segments and the root's fallback methods.
    expect(Object.keys(template.findResources('AWS::ApiGateway::Method'))).toHaveLength(2);
    for (const [area, nested] of stack.api.areas) {
      const t = Template.fromStack(nested);
      const methods = Object.values(t.findResources('AWS::ApiGateway::Method')).filter((m) => m.Properties.HttpMethod !== 'ANY');
      // Each row's method, and HEAD beside each GET (infra/constructs/route-areas.ts).
      expect(methods).toHaveLength(ROUTES.filter((r) => apiAreaOf(r.path) === area).reduce((n, r) => n + (r.method === 'GET' ? 2 : 1), 0));
      expect(Object.keys(t.findResources('AWS::Lambda::Function'))).toHaveLength(0);
    }
    expect(apiMethods(synthesized).filter((m) => m.httpMethod !== 'ANY' && m.httpMethod !== 'HEAD')).toHaveLength(ROUTES.length);
  });

  it('the deployment waits for every area and is replaced when the route table changes', () => {
    const { template } = synth({ stage: 'dev' });
    const [deploymentId, deployment] = Object.entries(template.findResources('AWS::ApiGateway::Deployment'))[0]!;
    const nestedIds = Object.keys(template.findResources('AWS::CloudFormation::Stack')).filter((id) => id.includes('Routes'));
    expect(nestedIds.length).toBeGreaterThan(2);
    for (const id of nestedIds) expect(deployment.DependsOn).toContain(id);
    // One more route in an existing area: a new deployment (logical id), so the stage serves it.
    const more: Route[] = [
      ...ROUTES,
      {
        method: 'GET',
        path: '/identity/v1/clients/{client_id}/extra',
        handler: 'functions/clients/get-client',
        auth: { type: 'bearer', scope: 'read:clients' },
        access: { table: 'read', kms: ['decrypt'] },
      },
    ];
    const { template: changed } = synth({ stage: 'dev', routes: more });
    const [changedId] = Object.keys(changed.findResources('AWS::ApiGateway::Deployment'));
    expect(changedId).not.toBe(deploymentId);
    const { template: same } = synth({ stage: 'dev' });
    expect(Object.keys(same.findResources('AWS::ApiGateway::Deployment'))).toEqual([deploymentId]);
  });

  it('synth fails with a clear message when an area outgrows its stack', () => {
    const routes: Route[] = [...ROUTES];
    for (let i = 0; i < 200; i++) {
      routes.push({
        method: 'GET',
        path: `/big/r${i}`,
        handler: 'functions/oauth/jwks',
        auth: { type: 'none' },
        access: { table: 'read', kms: [] },
      });
    }
    expect(() => synth({ routes })).toThrow(/Routes-oauth: \d+ resources: CloudFormation allows 500 per stack/);
  });
});
