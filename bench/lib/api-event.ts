import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';

export interface EventSpec {
  method: string;
  /** API Gateway resource (the route table's path template). */
  resource: string;
  /** The concrete path; defaults to `resource`. */
  path?: string;
  headers?: Record<string, string>;
  query?: Record<string, string>;
  pathParameters?: Record<string, string>;
  body?: string;
}

/**
 * An API Gateway REST (v1) proxy event, shaped like the one infra/local/server.ts builds (and API
 * Gateway sends), so an in-process call runs exactly what a Lambda invocation runs.
 */
export function proxyEvent(spec: EventSpec, stage = 'local'): APIGatewayProxyEvent {
  const path = spec.path ?? spec.resource;
  const headers = { 'User-Agent': 'identity-bench', ...spec.headers };
  const multiValueHeaders = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]]));
  const hasQuery = spec.query && Object.keys(spec.query).length > 0;
  return {
    resource: spec.resource,
    path,
    httpMethod: spec.method,
    headers,
    multiValueHeaders,
    queryStringParameters: hasQuery ? spec.query! : null,
    multiValueQueryStringParameters: hasQuery ? Object.fromEntries(Object.entries(spec.query!).map(([k, v]) => [k, [v]])) : null,
    pathParameters: spec.pathParameters ?? null,
    stageVariables: null,
    body: spec.body ?? null,
    isBase64Encoded: false,
    requestContext: {
      accountId: 'bench',
      apiId: 'bench',
      authorizer: null,
      protocol: 'HTTP/1.1',
      httpMethod: spec.method,
      path: `/${stage}${path}`,
      stage,
      requestId: randomUUID(),
      requestTimeEpoch: Date.now(),
      resourceId: 'bench',
      resourcePath: spec.resource,
      identity: { sourceIp: '127.0.0.1', userAgent: 'identity-bench' } as APIGatewayProxyEvent['requestContext']['identity'],
    },
  };
}

export function lambdaContext(functionName: string, memoryMb = 1024): Context {
  const deadline = Date.now() + 30_000;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName.replace(/\//g, '-')}`,
    memoryLimitInMB: String(memoryMb),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'bench',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}

export const basicAuth = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

export const FORM = 'application/x-www-form-urlencoded';
