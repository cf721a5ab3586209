import { ArnFormat, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';

/**
 * The account-wide role API Gateway writes CloudWatch logs with (one per account and region, as
 * `AWS::ApiGateway::Account`). CDK's `cloudWatchRole` attaches the AWS managed policy
 * AmazonAPIGatewayPushToCloudWatchLogs (Resource `*`, every region); this inline policy grants the
 * same actions on this account's and region's log groups only. It cannot be narrower: every API
 * of the account and region logs through it. Retained on stack deletion like CDK's, since other
 * stages may log through it.
 */
export class ApiGatewayAccountRole extends Construct {
  readonly role: iam.Role;
  readonly account: apigw.CfnAccount;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const stack = Stack.of(this);
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('apigateway.amazonaws.com'),
      description: 'API Gateway writes access and execution logs of every REST API in this account and region',
      inlinePolicies: {
        Logs: new iam.PolicyDocument({
          statements: [
            new iam.PolicyStatement({
              actions: [
                'logs:CreateLogGroup',
                'logs:CreateLogStream',
                'logs:DescribeLogGroups',
                'logs:DescribeLogStreams',
                'logs:PutLogEvents',
                'logs:GetLogEvents',
                'logs:FilterLogEvents',
              ],
              resources: [
                stack.formatArn({ service: 'logs', resource: 'log-group', resourceName: '*', arnFormat: ArnFormat.COLON_RESOURCE_NAME }),
              ],
            }),
          ],
        }),
      },
    });
    this.role.applyRemovalPolicy(RemovalPolicy.RETAIN);
    this.account = new apigw.CfnAccount(this, 'Account', { cloudWatchRoleArn: this.role.roleArn });
    this.account.applyRemovalPolicy(RemovalPolicy.RETAIN);
  }
}
