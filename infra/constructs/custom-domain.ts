import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as route53 from 'aws-cdk-lib/aws-route53';
import * as route53Targets from 'aws-cdk-lib/aws-route53-targets';
import { Construct } from 'constructs';

export interface CustomDomainProps {
  readonly api: apigw.RestApi;
  /** e.g. `id.example.com`. */
  readonly domainName: string;
  /** ACM certificate for `domainName` in the stack's region (regional endpoint). */
  readonly certificateArn: string;
  /** @default - no DNS record; point the name at the domain's regional target yourself */
  readonly hostedZone?: { readonly hostedZoneId: string; readonly zoneName: string };
}

/**
 * Serves the API's stage at `https://<domainName>/`. Mapped at the root with no base path, so the
 * issuer is `https://<domainName>` and a request's `path` equals the route table's path.
 */
export class CustomDomain extends Construct {
  readonly domain: apigw.DomainName;

  constructor(scope: Construct, id: string, props: CustomDomainProps) {
    super(scope, id);
    this.domain = new apigw.DomainName(this, 'Domain', {
      domainName: props.domainName,
      certificate: acm.Certificate.fromCertificateArn(this, 'Certificate', props.certificateArn),
      endpointType: apigw.EndpointType.REGIONAL,
      securityPolicy: apigw.SecurityPolicy.TLS_1_2,
      mapping: props.api,
    });
    if (props.hostedZone) {
      new route53.ARecord(this, 'Alias', {
        zone: route53.HostedZone.fromHostedZoneAttributes(this, 'Zone', props.hostedZone),
        recordName: props.domainName,
        target: route53.RecordTarget.fromAlias(new route53Targets.ApiGatewayDomain(this.domain)),
      });
    }
  }
}
