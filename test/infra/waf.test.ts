import { describe, expect, it, vi } from 'vitest';
import {
  COUNT_ONLY_COMMON_RULES,
  MANAGED_BLOCK_RULES,
  MANAGED_RULE_GROUPS,
  MAX_CUSTOM_RESPONSE_HEADERS,
  RATE_LIMITED_PATHS,
} from '../../infra/constructs/edge-protection.ts';
import { synth } from './support.ts';

// Synthesizing a stack takes seconds, many more on a busy CI machine.
vi.setConfig({ testTimeout: 120_000 });

type Json = Record<string, any>;

const { template: prod } = synth({ stage: 'prod' });
const acl = () => Object.values(prod.findResources('AWS::WAFv2::WebACL'))[0]!.Properties as Json;
const rule = (name: string) => (acl().Rules as Json[]).find((r) => r.Name === name)!;

describe('WAF web ACL per stage (docs/deploy.md "WAF")', () => {
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
      Action: { Block: { CustomResponse: { ResponseCode: 429, CustomResponseBodyKey: 'TooManyRequests' } } },
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
    const overrides = rule('AWSManagedRulesCommonRuleSet').Statement.ManagedRuleGroupStatement.RuleActionOverrides as Json[];
    for (const name of COUNT_ONLY_COMMON_RULES) expect(overrides.find((o) => o.Name === name)?.ActionToUse).toEqual({ Count: {} });
  });

  describe('a blocked client gets the service error shape (docs/contract.md §2), not WAF’s bare 403', () => {
    const bodies = () => acl().CustomResponseBodies as Json;

    it('the two bodies: JSON {code, message, error, error_description} with the codes of the service’s own 429 and 403', () => {
      expect(Object.keys(bodies()).sort()).toEqual(['Forbidden', 'TooManyRequests']);
      expect(bodies().TooManyRequests.ContentType).toBe('APPLICATION_JSON');
      expect(bodies().Forbidden.ContentType).toBe('APPLICATION_JSON');
      // One body for every route, so RFC 6749's members too: the OAuth endpoints need them (docs/contract.md §2).
      expect(JSON.parse(bodies().TooManyRequests.Content)).toEqual({
        code: 'too_many_requests',
        message: 'Too many requests from this address; retry later.',
        error: 'too_many_requests',
        error_description: 'Too many requests from this address; retry later.',
      });
      expect(JSON.parse(bodies().Forbidden.Content)).toEqual({
        code: 'forbidden',
        message: 'The request was refused by the web application firewall.',
        error: 'forbidden',
        error_description: 'The request was refused by the web application firewall.',
      });
    });

    it('every rate rule answers 429 with Retry-After (the window), no-store, no-cache and nosniff', () => {
      const rateRules = (acl().Rules as Json[]).filter((r) => r.Statement.RateBasedStatement);
      expect(rateRules).toHaveLength(RATE_LIMITED_PATHS.length + 1);
      for (const r of rateRules) {
        expect(r.Action, r.Name).toEqual({
          Block: {
            CustomResponse: {
              ResponseCode: 429,
              CustomResponseBodyKey: 'TooManyRequests',
              ResponseHeaders: [
                { Name: 'Retry-After', Value: '300' },
                { Name: 'Cache-Control', Value: 'no-store' },
                { Name: 'Pragma', Value: 'no-cache' },
                { Name: 'X-Content-Type-Options', Value: 'nosniff' },
              ],
            },
          },
        });
      }
    });

    it('every blocking rule of each managed group answers 403 forbidden; the count-only ones still count', () => {
      const groups = (acl().Rules as Json[]).filter((r) => r.Statement.ManagedRuleGroupStatement);
      expect(groups.length).toBeGreaterThan(0);
      for (const g of groups) {
        const overrides = g.Statement.ManagedRuleGroupStatement.RuleActionOverrides as Json[];
        expect(overrides.map((o) => o.Name)).toEqual(MANAGED_BLOCK_RULES[g.Name as keyof typeof MANAGED_BLOCK_RULES]);
        for (const o of overrides.filter((x) => !COUNT_ONLY_COMMON_RULES.includes(x.Name))) {
          expect(o.ActionToUse, `${g.Name}/${o.Name}`).toEqual({
            Block: {
              CustomResponse: {
                ResponseCode: 403,
                CustomResponseBodyKey: 'Forbidden',
                ResponseHeaders: [{ Name: 'X-Content-Type-Options', Value: 'nosniff' }],
              },
            },
          });
        }
      }
    });

    it('every managed group the config accepts fits WAF’s 100 custom response headers per web ACL', () => {
      const { template: all } = synth({ stage: 'prod', settings: { waf: { managedRuleGroups: [...MANAGED_RULE_GROUPS] } } });
      const rules = (Object.values(all.findResources('AWS::WAFv2::WebACL'))[0]!.Properties as Json).Rules as Json[];
      const headerCount = (action: Json | undefined) => action?.Block?.CustomResponse?.ResponseHeaders?.length ?? 0;
      const total = rules.reduce(
        (n, r) =>
          n +
          headerCount(r.Action) +
          ((r.Statement.ManagedRuleGroupStatement?.RuleActionOverrides as Json[] | undefined) ?? []).reduce(
            (m, o) => m + headerCount(o.ActionToUse),
            0,
          ),
        0,
      );
      expect(total).toBeGreaterThan(40);
      expect(total).toBeLessThanOrEqual(MAX_CUSTOM_RESPONSE_HEADERS);
    });

    it('with a docs URL the message points at the error page, as the API’s own errors do', () => {
      const { template: t } = synth({ stage: 'prod', settings: { docsUrl: 'https://docs.example.com' } });
      const b = (Object.values(t.findResources('AWS::WAFv2::WebACL'))[0]!.Properties as Json).CustomResponseBodies as Json;
      expect(JSON.parse(b.TooManyRequests.Content).message).toBe(
        'Too many requests from this address; retry later. See https://docs.example.com/errors#too_many_requests',
      );
      expect(JSON.parse(b.Forbidden.Content).code).toBe('forbidden');
      // error_description is the message alone, as the service's own OAuth errors have it.
      expect(JSON.parse(b.TooManyRequests.Content).error_description).toBe('Too many requests from this address; retry later.');
    });
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
