import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { forbidden, tooManyRequests } from '#shared/errors.ts';
import { NO_STORE } from '#shared/http/response.ts';
import { gatewayErrorBody } from './gateway-responses.ts';

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
 * The rules of each managed group whose own action is Block, as the AWS WAF Developer Guide lists
 * them ("AWS Managed Rules rule groups list"). Each gets a rule action override to Block with the
 * service's error shape (a managed group's block cannot be given a custom response as a whole).
 * A rule AWS adds to a group later still blocks, with WAF's plain 403, until it is listed here.
 * Checked against the guide's tables (`ReactJSRCE_BODY`, `SQLiExtendedPatterns_HEADER` and
 * `_URIPATH` included). WAF silently ignores an override naming a rule that a managed group
 * does not have (API reference, RuleActionOverride), so a name listed ahead of the group version a
 * stage runs is harmless; a misspelled one would leave its rule on the plain 403.
 * Rules whose own action is Count (`AWSManagedIPDDoSList`) are left as AWS ships them.
 */
export const MANAGED_BLOCK_RULES: Readonly<Record<ManagedRuleGroup, readonly string[]>> = {
  AWSManagedRulesCommonRuleSet: [
    'NoUserAgent_HEADER',
    'UserAgent_BadBots_HEADER',
    'SizeRestrictions_QUERYSTRING',
    'SizeRestrictions_Cookie_HEADER',
    'SizeRestrictions_BODY',
    'SizeRestrictions_URIPATH',
    'EC2MetaDataSSRF_BODY',
    'EC2MetaDataSSRF_COOKIE',
    'EC2MetaDataSSRF_URIPATH',
    'EC2MetaDataSSRF_QUERYARGUMENTS',
    'GenericLFI_QUERYARGUMENTS',
    'GenericLFI_URIPATH',
    'GenericLFI_BODY',
    'RestrictedExtensions_URIPATH',
    'RestrictedExtensions_QUERYARGUMENTS',
    'GenericRFI_QUERYARGUMENTS',
    'GenericRFI_BODY',
    'GenericRFI_URIPATH',
    'CrossSiteScripting_COOKIE',
    'CrossSiteScripting_QUERYARGUMENTS',
    'CrossSiteScripting_BODY',
    'CrossSiteScripting_URIPATH',
  ],
  AWSManagedRulesKnownBadInputsRuleSet: [
    'JavaDeserializationRCE_HEADER',
    'JavaDeserializationRCE_BODY',
    'JavaDeserializationRCE_URIPATH',
    'JavaDeserializationRCE_QUERYSTRING',
    'Host_localhost_HEADER',
    'PROPFIND_METHOD',
    'ExploitablePaths_URIPATH',
    'Log4JRCE_HEADER',
    'Log4JRCE_QUERYSTRING',
    'Log4JRCE_BODY',
    'Log4JRCE_URIPATH',
    'ReactJSRCE_BODY',
  ],
  AWSManagedRulesAmazonIpReputationList: ['AWSManagedIPReputationList', 'AWSManagedReconnaissanceList'],
  AWSManagedRulesAnonymousIpList: ['AnonymousIPList', 'HostingProviderIPList'],
  AWSManagedRulesSQLiRuleSet: [
    'SQLi_QUERYARGUMENTS',
    'SQLiExtendedPatterns_QUERYARGUMENTS',
    'SQLi_BODY',
    'SQLiExtendedPatterns_BODY',
    'SQLi_COOKIE',
    'SQLi_URIPATH',
    'SQLiExtendedPatterns_HEADER',
    'SQLiExtendedPatterns_URIPATH',
  ],
};

/**
 * What a blocked client gets (docs/contract.md §2's one error shape, the codes of the service's own 429 and
 * 403, shared/errors.ts): WAF answers before API Gateway, so without these it would be WAF's bare
 * 403. Custom response bodies of the web ACL, by key.
 */
export const WAF_ERRORS = {
  TooManyRequests: { status: 429, code: tooManyRequests().code, message: 'Too many requests from this address; retry later.' },
  Forbidden: { status: 403, code: forbidden().code, message: 'The request was refused by the web application firewall.' },
} as const;

/**
 * Headers of the blocked answers. WAF allows 100 custom response headers per web ACL in all
 * (AWS WAF quotas) and there is one managed-rule override per rule, so those carry `nosniff` only
 * (docs/contract.md §8; a 403 is not cached without a freshness header). The rate rules also say when to
 * come back: after one window the address's count is empty for sure.
 */
const NOSNIFF = { name: 'X-Content-Type-Options', value: 'nosniff' };
export const MAX_CUSTOM_RESPONSE_HEADERS = 100;

/**
 * The paths where guessing or abuse costs the most (docs/contract.md §7.3): a rate-based rule per client IP
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
  /** The error pages' base URL: the blocked answers' message points there, as the API's own do. */
  readonly docsUrl?: string | undefined;
}

/**
 * An AWS WAF web ACL on the stage (docs/design.md §1; docs/deploy.md "WAF"): AWS managed rule groups, one
 * rate-based rule per client IP on each sensitive path, and one for the whole API. Everything not
 * matched is allowed. A blocked request gets the service's error shape (WAF_ERRORS): 429 from a rate
 * rule, 403 from a managed rule. Metrics per rule in `AWS/WAFV2`.
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
    const block = (
      key: keyof typeof WAF_ERRORS,
      headers: wafv2.CfnWebACL.CustomHTTPHeaderProperty[],
    ): wafv2.CfnWebACL.RuleActionProperty => ({
      block: { customResponse: { responseCode: WAF_ERRORS[key].status, customResponseBodyKey: key, responseHeaders: headers } },
    });
    const rateHeaders = [
      { name: 'Retry-After', value: String(props.evaluationWindowSeconds) },
      // Never cached, with RFC 6749 §5.1's Pragma: a rate rule covers /token.
      ...Object.entries(NO_STORE).map(([name, value]) => ({ name, value })),
      NOSNIFF,
    ];
    const rateBlock = block('TooManyRequests', rateHeaders);
    const managedBlock = block('Forbidden', [NOSNIFF]);
    const blockingManagedRules = props.managedRuleGroups
      .flatMap((group) => MANAGED_BLOCK_RULES[group])
      .filter((name) => !COUNT_ONLY_COMMON_RULES.includes(name));
    // WAF counts every occurrence; refused here rather than by WAF at deploy time.
    const headers = (RATE_LIMITED_PATHS.length + 1) * rateHeaders.length + blockingManagedRules.length;
    if (headers > MAX_CUSTOM_RESPONSE_HEADERS) {
      throw new Error(`EdgeProtection: ${headers} custom response headers, WAF allows ${MAX_CUSTOM_RESPONSE_HEADERS} per web ACL`);
    }
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
        action: rateBlock,
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
      action: rateBlock,
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
            ruleActionOverrides: MANAGED_BLOCK_RULES[group].map((name) => ({
              name,
              actionToUse: COUNT_ONLY_COMMON_RULES.includes(name) ? { count: {} } : managedBlock,
            })),
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
      customResponseBodies: Object.fromEntries(
        Object.entries(WAF_ERRORS).map(([key, e]) => [
          key,
          { contentType: 'APPLICATION_JSON', content: gatewayErrorBody(e, props.docsUrl) },
        ]),
      ),
      rules,
    });
    this.association = new wafv2.CfnWebACLAssociation(this, 'Association', {
      resourceArn: props.stage.stageArn,
      webAclArn: this.webAcl.attrArn,
    });
  }
}
