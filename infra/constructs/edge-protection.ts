import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';

/** AWS managed rule groups a stage may turn on (vendor `AWS`). */
export const MANAGED_RULE_GROUPS = [
  'AWSManagedRulesCommonRuleSet',
  'AWSManagedRulesKnownBadInputsRuleSet',
  'AWSManagedRulesAmazonIpReputationList',
  'AWSManagedRulesAnonymousIpList',
  'AWSManagedRulesSQLiRuleSet',
] as const;
export type ManagedRuleGroup = (typeof MANAGED_RULE_GROUPS)[number];

/**
 * Rules of the Common Rule Set that would refuse legitimate OAuth traffic, so they only count:
 * machine clients (`client_credentials` from scripts, IoT devices at `/device_code`) often send no
 * User-Agent, and management bodies (a client with its metadata and redirect URIs) may pass 8 KB;
 * the functions bound bodies themselves.
 */
export const COUNT_ONLY_COMMON_RULES: readonly string[] = ['NoUserAgent_HEADER', 'SizeRestrictions_BODY'];

/**
 * The paths where guessing or abuse costs the most (API.md §7.3): a rate-based rule per client IP
 * each. Matched on the end of the URI path, so they hold behind the execute-api stage prefix
 * (`/prod/token`) and on a custom domain (`/token`) alike.
 */
export const RATE_LIMITED_PATHS: readonly string[] = ['/token', '/login', '/device', '/users/register'];

export interface EdgeProtectionProps {
  /** The API stage the web ACL protects. */
  readonly stage: apigw.Stage;
  /** Requests per client IP and evaluation window on each of RATE_LIMITED_PATHS. */
  readonly sensitivePathLimit: number;
  /** Requests per client IP and evaluation window on the whole API. */
  readonly perIpLimit: number;
  /** Rate-based rules' window: 60, 120, 300 or 600 s. */
  readonly evaluationWindowSeconds: number;
  readonly managedRuleGroups: readonly ManagedRuleGroup[];
  /** CloudWatch metric name prefix (WAF metrics are per account and region). */
  readonly metricPrefix: string;
}

/**
 * An AWS WAF web ACL on the stage (DESIGN.md §1, issue 15 item 6): AWS managed rule groups, one
 * rate-based rule per client IP on each sensitive path, and one for the whole API. Everything not
 * matched is allowed; blocked requests get WAF's 403. Metrics per rule in `AWS/WAFV2`.
 */
export class EdgeProtection extends Construct {
  readonly webAcl: wafv2.CfnWebACL;
  readonly association: wafv2.CfnWebACLAssociation;

  constructor(scope: Construct, id: string, props: EdgeProtectionProps) {
    super(scope, id);
    const visibility = (name: string): wafv2.CfnWebACL.VisibilityConfigProperty => ({
      cloudWatchMetricsEnabled: true,
      sampledRequestsEnabled: true,
      metricName: `${props.metricPrefix}-${name}`,
    });
    const rules: wafv2.CfnWebACL.RuleProperty[] = [];
    // Rate rules first: a flood is refused before the managed groups spend WCUs on it.
    RATE_LIMITED_PATHS.forEach((path, i) => {
      const name = `RateLimit${path
        .split('/')
        .map((s) => s.charAt(0).toUpperCase() + s.slice(1))
        .join('')}`;
      rules.push({
        name,
        priority: i,
        action: { block: {} },
        statement: {
          rateBasedStatement: {
            limit: props.sensitivePathLimit,
            aggregateKeyType: 'IP',
            evaluationWindowSec: props.evaluationWindowSeconds,
            scopeDownStatement: {
              byteMatchStatement: {
                fieldToMatch: { uriPath: {} },
                positionalConstraint: 'ENDS_WITH',
                searchString: path,
                textTransformations: [{ priority: 0, type: 'LOWERCASE' }],
              },
            },
          },
        },
        visibilityConfig: visibility(name),
      });
    });
    rules.push({
      name: 'RateLimitPerIp',
      priority: RATE_LIMITED_PATHS.length,
      action: { block: {} },
      statement: {
        rateBasedStatement: { limit: props.perIpLimit, aggregateKeyType: 'IP', evaluationWindowSec: props.evaluationWindowSeconds },
      },
      visibilityConfig: visibility('RateLimitPerIp'),
    });
    props.managedRuleGroups.forEach((group, i) => {
      rules.push({
        name: group,
        priority: RATE_LIMITED_PATHS.length + 1 + i,
        overrideAction: { none: {} },
        statement: {
          managedRuleGroupStatement: {
            vendorName: 'AWS',
            name: group,
            ...(group === 'AWSManagedRulesCommonRuleSet'
              ? { ruleActionOverrides: COUNT_ONLY_COMMON_RULES.map((name) => ({ name, actionToUse: { count: {} } })) }
              : {}),
          },
        },
        visibilityConfig: visibility(group),
      });
    });

    this.webAcl = new wafv2.CfnWebACL(this, 'WebAcl', {
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      description: `Identity service edge protection (${props.stage.stageName})`,
      visibilityConfig: visibility('WebAcl'),
      rules,
    });
    this.association = new wafv2.CfnWebACLAssociation(this, 'Association', {
      resourceArn: props.stage.stageArn,
      webAclArn: this.webAcl.attrArn,
    });
  }
}
