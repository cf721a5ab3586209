import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';

/** An API Gateway REST (v1) proxy event, as the gateway (or infra/local/server.ts) builds it. */
export function restEvent(e: {
  method: string;
  resource: string;
  path?: string;
  headers?: Record<string, string>;
  query?: Record<string, string>;
  pathParameters?: Record<string, string>;
  body?: string;
}): APIGatewayProxyEvent {
  return {
    resource: e.resource,
    path: e.path ?? e.resource,
    httpMethod: e.method,
    headers: e.headers ?? {},
    multiValueHeaders: {},
    queryStringParameters: e.query ?? null,
    multiValueQueryStringParameters: null,
    pathParameters: e.pathParameters ?? null,
    stageVariables: null,
    body: e.body ?? null,
    isBase64Encoded: false,
    requestContext: { requestId: randomUUID(), stage: 'test' } as APIGatewayProxyEvent['requestContext'],
  };
}

export const lambdaContext = { awsRequestId: 'test', functionName: 'test', getRemainingTimeInMillis: () => 30_000 } as unknown as Context;
