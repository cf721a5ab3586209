import { Stack, Validations } from 'aws-cdk-lib';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { describe, expect, it, vi } from 'vitest';
import { ROUTES } from '#shared/routes/route-table.ts';
import type { IdentityServiceStack } from '../../infra/constructs/identity-service-stack.ts';
import { addNagChecks, routeAuthorizationReason } from '../../infra/nag-suppressions.ts';
import { actionsOf, roleStatements, synth, testApp } from './support.ts';
import { syntheticRoutes } from './synthetic-routes.ts';

// Synthesizing a stack takes seconds, many more on a busy CI machine.
vi.setConfig({ testTimeout: 120_000 });

/** cdk-nag's AwsSolutions pack over a stage stack and its nested stacks: every unacknowledged finding. */
function findings(stack: Stack): string[] {
  const result = new AwsSolutionsChecks().validateScope(stack);
  return result.violations.flatMap((v) => v.violatingResources.map((r) => `${v.severity} ${v.ruleName} at ${r.constructPath}`));
}

/** Every acknowledgment recorded on the construct tree: id → reasons. */
function acknowledgments(root: IConstruct): Map<string, string[]> {
  const all = new Map<string, string[]>();
  for (const c of root.node.findAll()) {
    for (const entry of c.node.metadata) {
      if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
      for (const [key, reason] of Object.entries(entry.data as Record<string, string>)) {
        const id = key.replace(/^annotation::/i, '');
        all.set(id, [...(all.get(id) ?? []), reason]);
      }
    }
  }
  return all;
}

const STAGES: [string, Parameters<typeof synth>[0]][] = [
  ['dev (no WAF, no topic)', { stage: 'dev' }],
  ['prod (WAF, tracing)', { stage: 'prod' }],
  [
    'prod with every option: kms-sign, custom domain, alarm topic, email without an SES identity',
    {
      stage: 'prod',
      settings: {
        keyMode: 'kms-sign',
        alarms: { emails: ['ops@example.com'], https: ['https://hooks.example.com/alarms'] },
        email: { from: 'no-reply@example.com' },
        customDomain: {
          domainName: 'id.example.com',
          certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/abc-123',
          hostedZoneId: 'Z123456ABCDEFG',
          hostedZoneName: 'example.com',
        },
      },
    },
  ],
  ['the synthetic 150-route table', { stage: 'prod', routes: syntheticRoutes(150, 120) }],
];

describe('cdk-nag AwsSolutions (docs/deploy.md "cdk-nag"): zero unacknowledged findings', () => {
  it.each(STAGES)('%s', (_name, options) => {
    const { stack } = synth(options);
    expect(findings(stack)).toEqual([]);
  });

  it('a finding nobody acknowledged fails the check (the check can fail)', () => {
    const { stack } = synth({ stage: 'dev' });
    // A bucket without TLS enforcement, logging or encryption settings: AwsSolutions-S1, S10, ...
    new s3.Bucket(stack, 'Unreviewed');
    expect(findings(stack).some((f) => f.includes('AwsSolutions-S10') && f.includes('Unreviewed'))).toBe(true);
  });
});

describe('acknowledgments: one place (infra/nag-suppressions.ts), each with its reason', () => {
  const { stack } = synth({ stage: 'prod', settings: { email: { from: 'no-reply@example.com' } } });
  const acks = acknowledgments(stack);

  it('only the accepted rules, each reason a real sentence', () => {
    const rules = new Set([...acks.keys()].map((id) => id.replace(/\[.*$/, '')));
    expect([...rules].sort()).toEqual(['AwsSolutions-APIG4', 'AwsSolutions-COG4', 'AwsSolutions-IAM5', 'AwsSolutions-SQS3']);
    for (const reasons of acks.values()) for (const r of reasons) expect(r.length).toBeGreaterThan(80);
  });

  it('every route method says how its function authorizes, naming the scope of bearer routes (docs/contract.md §4)', () => {
    const methods = (stack as IdentityServiceStack).api.routeMethods;
    expect(methods.size).toBe(ROUTES.length);
    for (const [route, method] of methods) {
      const own = acknowledgments(method);
      expect(own.get('AwsSolutions-APIG4')).toEqual([routeAuthorizationReason(route)]);
      expect(own.get('AwsSolutions-COG4')).toEqual([routeAuthorizationReason(route)]);
      if (route.auth.type === 'bearer' && route.auth.scope) expect(routeAuthorizationReason(route)).toContain(`"${route.auth.scope}"`);
      if (route.auth.type === 'client') expect(routeAuthorizationReason(route)).toContain('client_secret_basic');
    }
  });

  it('"*" resources in function roles are X-Ray only (the IAM5 acknowledgment on the roles)', () => {
    const { template } = synth({ stage: 'prod' });
    for (const [id, role] of Object.entries(template.findResources('AWS::IAM::Role'))) {
      if (!JSON.stringify(role.Properties.AssumeRolePolicyDocument).includes('lambda.amazonaws.com')) continue;
      const onStar = roleStatements(template, id).filter(
        (s) => s.Resource === '*' || (Array.isArray(s.Resource) && s.Resource.includes('*')),
      );
      expect(actionsOf(onStar).sort()).toEqual(['xray:PutTelemetryRecords', 'xray:PutTraceSegments']);
    }
  });

  it('the stage without WAF acknowledges APIG3 with its reason; a stage with WAF has nothing to acknowledge', () => {
    const { stack: dev } = synth({ stage: 'dev' });
    expect(acknowledgments(dev).get('AwsSolutions-APIG3')?.[0]).toMatch(/waf\.enabled: false/);
    expect(acks.has('AwsSolutions-APIG3')).toBe(false);
  });
});

it('cdk synth runs the pack (infra/app.ts): an unacknowledged finding fails synthesis', () => {
  const app = testApp();
  addNagChecks(app);
  const stack = new Stack(app, 'Probe', { env: { account: '123456789012', region: 'eu-west-1' } });
  new s3.Bucket(stack, 'Unreviewed');
  expect(() => app.synth()).toThrow(/[Vv]alidation/);
});
