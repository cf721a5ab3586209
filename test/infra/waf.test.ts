import { describe, expect, it, vi } from 'vitest';
import { COUNT_ONLY_COMMON_RULES, RATE_LIMITED_PATHS } from '../../infra/constructs/edge-protection.ts';
import { synth } from './support.ts';

// Synthesizing a stack takes seconds, many more on a busy CI machine.
vi.setConfig({ testTimeout: 120_000 });

type Json = Record<string, any>;

const { template: prod } = synth({ stage: 'prod' });
const acl = () => Object.values(prod.findResources('AWS::WAFv2::WebACL'))[0]!.Properties as Json;
const rule = (name: string) => (acl().Rules as Json[]).find((r) => r.Name === name)!;

describe('WAF web ACL per stage (issue 15 item 6; docs/deploy.md "WAF")', () => {
  it('on by default on a production stage: a regional web ACL associated with the API stage', () => {
    expect(acl()).toMatchObject({ Scope: 'REGIONAL', DefaultAction: { Allow: {} } });
    const [association] = Object.values(prod.findResources('AWS::WAFv2::WebACLAssociation'));
    const [aclId] = Object.keys(prod.findResources('AWS::WAFv2::WebACL'));
    const [stageId] = Object.keys(prod.findResources('AWS::ApiGateway::Stage'));
    const [apiId] = Object.keys(prod.findResources('AWS::ApiGateway::RestApi'));
    expect(association!.Properties.WebACLArn).toEqual({ 'Fn::GetAtt': [aclId, 'Arn'] });
    const arn = JSON.stringify(association!.Properties.ResourceArn);
    expect(arn).toContain(`/restapis/`);
    expect(arn).toContain(`{"Ref":"${apiId}"}`);
    expect(arn).toContain(`/stages/`);
    expect(arn).toContain(`{"Ref":"${stageId}"}`);
  });

  it.each(RATE_LIMITED_PATHS)('a rate-based rule per client IP on paths ending in %s', (path) => {
    const rules = (acl().Rules as Json[]).filter(
      (r) => r.Statement.RateBasedStatement?.ScopeDownStatement?.ByteMatchStatement?.SearchString === path,
    );
    expect(rules).toHaveLength(1);
    expect(rules[0]).toMatchObject({
      Action: { Block: {} },
      Statement: {
        RateBasedStatement: {
          AggregateKeyType: 'IP',
          Limit: 300,
          EvaluationWindowSec: 300,
          ScopeDownStatement: {
            ByteMatchStatement: {
              FieldToMatch: { UriPath: {} },
              PositionalConstraint: 'ENDS_WITH',
              TextTransformations: [{ Type: 'LOWERCASE' }],
            },
          },
        },
      },
      VisibilityConfig: { CloudWatchMetricsEnabled: true, SampledRequestsEnabled: true },
    });
  });

  it('a per-IP rate limit over the whole API, then the AWS managed rule groups', () => {
    expect(rule('RateLimitPerIp').Statement.RateBasedStatement).toEqual({ AggregateKeyType: 'IP', Limit: 3000, EvaluationWindowSec: 300 });
    for (const name of ['AWSManagedRulesCommonRuleSet', 'AWSManagedRulesKnownBadInputsRuleSet', 'AWSManagedRulesAmazonIpReputationList']) {
      expect(rule(name)).toMatchObject({
        OverrideAction: { None: {} },
        Statement: { ManagedRuleGroupStatement: { VendorName: 'AWS', Name: name } },
      });
    }
    // Rate rules are evaluated first; priorities are unique.
    const priorities = (acl().Rules as Json[]).map((r) => r.Priority);
    expect(new Set(priorities).size).toBe(priorities.length);
    expect(rule('RateLimitPerIp').Priority).toBeLessThan(rule('AWSManagedRulesCommonRuleSet').Priority);
  });

  it('machine clients without a User-Agent and large management bodies are counted, not blocked', () => {
    expect(rule('AWSManagedRulesCommonRuleSet').Statement.ManagedRuleGroupStatement.RuleActionOverrides).toEqual(
      COUNT_ONLY_COMMON_RULES.map((name) => ({ Name: name, ActionToUse: { Count: {} } })),
    );
  });

  it('off by default on a throwaway stage (removalPolicy destroy); either way by waf.enabled', () => {
    const { template: dev } = synth({ stage: 'dev' });
    expect(Object.keys(dev.findResources('AWS::WAFv2::WebACL'))).toHaveLength(0);
    const { template: devOn } = synth({ stage: 'dev', settings: { waf: { enabled: true } } });
    expect(Object.keys(devOn.findResources('AWS::WAFv2::WebACLAssociation'))).toHaveLength(1);
    const { template: prodOff } = synth({ stage: 'prod', settings: { waf: { enabled: false } } });
    expect(Object.keys(prodOff.findResources('AWS::WAFv2::WebACL'))).toHaveLength(0);
  });

  it('limits, window and rule groups come from the stage config', () => {
    const { template: t } = synth({
      stage: 'prod',
      settings: {
        waf: { sensitivePathLimit: 50, perIpLimit: 1000, evaluationWindowSeconds: 60, managedRuleGroups: ['AWSManagedRulesSQLiRuleSet'] },
      },
    });
    const rules = (Object.values(t.findResources('AWS::WAFv2::WebACL'))[0]!.Properties as Json).Rules as Json[];
    expect(
      rules.filter((r) => r.Statement.RateBasedStatement?.ScopeDownStatement).map((r) => r.Statement.RateBasedStatement.Limit),
    ).toEqual([50, 50, 50, 50]);
    expect(rules.find((r) => r.Name === 'RateLimitPerIp')!.Statement.RateBasedStatement).toMatchObject({
      Limit: 1000,
      EvaluationWindowSec: 60,
    });
    expect(rules.filter((r) => r.Statement.ManagedRuleGroupStatement).map((r) => r.Name)).toEqual(['AWSManagedRulesSQLiRuleSet']);
  });

  it('refuses a bad setting with the field named', () => {
    expect(() => synth({ settings: { waf: { evaluationWindowSeconds: 30 } } })).toThrow(
      /waf\.evaluationWindowSeconds: must be 60, 120, 300 or 600/,
    );
    expect(() => synth({ settings: { waf: { managedRuleGroups: ['MadeUp'] } } })).toThrow(/waf\.managedRuleGroups\.0: must be one of/);
    expect(() => synth({ settings: { waf: { sensitivePathLimit: 5 } } })).toThrow(/waf\.sensitivePathLimit/);
  });
});
