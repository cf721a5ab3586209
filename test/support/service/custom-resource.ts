import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Context } from 'aws-lambda';
import type { CustomResourceEvent } from '#shared/bootstrap/cloudformation-response.ts';

/** A Lambda context good enough for the handler: names for the log pointer, a settable time budget. */
export function lambdaContext(remainingMs = 120_000): Context {
  return {
    functionName: 'IdentityService-test-BootstrapFunction',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:IdentityService-test-BootstrapFunction',
    memoryLimitInMB: '512',
    awsRequestId: 'b0b0b0b0-0000-4000-8000-000000000001',
    logGroupName: '/aws/test/FunctionLogs',
    logStreamName: '2026/03/01/IdentityService-test-BootstrapFunction[$LATEST]abc',
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => remainingMs,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

export interface ReceivedResponse {
  method: string;
  contentType: string | undefined;
  body: string;
  json: Record<string, unknown>;
}

/**
 * Stands where CloudFormation's pre-signed S3 response URL stands: records every request. A real
 * HTTP server on loopback, so the handler's own fetch PUT is what is tested.
 */
export async function responseUrlServer(): Promise<{ url: string; received: ReceivedResponse[]; close: () => Promise<void> }> {
  const received: ReceivedResponse[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({
        method: req.method ?? '',
        contentType: req.headers['content-type'],
        body,
        json: JSON.parse(body) as Record<string, unknown>,
      });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/cloudformation-response?X-Amz-Signature=test`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export function customResourceEvent(
  requestType: 'Create' | 'Update' | 'Delete',
  responseUrl: string,
  physicalResourceId?: string,
): CustomResourceEvent {
  const common = {
    ServiceToken: 'arn:aws:lambda:eu-west-1:123456789012:function:IdentityService-test-BootstrapFunction',
    ResponseURL: responseUrl,
    StackId: 'arn:aws:cloudformation:eu-west-1:123456789012:stack/IdentityService-test/4b8e7f10-0000-11f0-0000-0a1b2c3d4e5f',
    RequestId: `req-${requestType}`,
    LogicalResourceId: 'BootstrapRun31281615',
    ResourceType: 'Custom::IdentityServiceBootstrap',
    ResourceProperties: { ServiceToken: 'arn:aws:lambda:eu-west-1:123456789012:function:IdentityService-test-BootstrapFunction' },
  };
  if (requestType === 'Create') return { ...common, RequestType: 'Create' };
  const PhysicalResourceId = physicalResourceId ?? 'identity-service-bootstrap';
  if (requestType === 'Update')
    return { ...common, RequestType: 'Update', PhysicalResourceId, OldResourceProperties: common.ResourceProperties };
  return { ...common, RequestType: 'Delete', PhysicalResourceId };
}
