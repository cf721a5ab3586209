import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';

export interface ProxyEventSpec {
  method: string;
  /** API Gateway resource: the route table's path template. */
  resource: string;
  /** The concrete path; defaults to `resource`. */
  path?: string;
  headers?: Record<string, string>;
  /** Every value of a repeated header; defaults to one value per `headers` entry. */
  multiValueHeaders?: Record<string, string[]>;
  query?: Record<string, string>;
  /** Every value of a repeated query parameter; defaults to one value per `query` entry. */
  multiValueQuery?: Record<string, string[]>;
  pathParameters?: Record<string, string>;
  body?: string | null;
  sourceIp?: string;
  requestId?: string;
}

const oneEach = (m: Record<string, string>) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, [v]]));

/**
 * The REST API (v1) Lambda proxy event as API Gateway builds it. The local server, the tests and
 * the benchmark all build events here, so an in-process call runs exactly what Lambda runs.
 */
export function proxyEvent(spec: ProxyEventSpec, stage = 'local'): APIGatewayProxyEvent {
  const path = spec.path ?? spec.resource;
  const headers = spec.headers ?? {};
  const query = spec.query ?? {};
  const hasQuery = Object.keys(query).length > 0;
  return {
    resource: spec.resource,
    path,
    httpMethod: spec.method,
    headers,
    multiValueHeaders: spec.multiValueHeaders ?? oneEach(headers),
    queryStringParameters: hasQuery ? query : null,
    multiValueQueryStringParameters: hasQuery ? (spec.multiValueQuery ?? oneEach(query)) : null,
    pathParameters: spec.pathParameters && Object.keys(spec.pathParameters).length ? spec.pathParameters : null,
    stageVariables: null,
    body: spec.body ?? null,
    isBase64Encoded: false,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      authorizer: null,
      protocol: 'HTTP/1.1',
      httpMethod: spec.method,
      path: `/${stage}${path}`,
      stage,
      requestId: spec.requestId ?? randomUUID(),
      requestTimeEpoch: Date.now(),
      resourceId: 'local',
      resourcePath: spec.resource,
      identity: {
        sourceIp: spec.sourceIp ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? headers['User-Agent'] ?? null,
      } as APIGatewayProxyEvent['requestContext']['identity'],
    },
  };
}

const noop = () => {};
/** The names Lambda derives from a function's name, once per function (the local server builds a context per request). */
const functionNames = new Map<string, { arn: string; logGroupName: string }>();
const namesOf = (functionName: string) => {
  let names = functionNames.get(functionName);
  if (!names) {
    names = {
      arn: `arn:aws:lambda:local:000000000000:function:${functionName.replace(/\//g, '-')}`,
      logGroupName: `/aws/lambda/${functionName}`,
    };
    functionNames.set(functionName, names);
  }
  return names;
};

/** The Lambda context of one invocation; `timeoutMs` is its function's timeout (shared/routes/function-groups.ts FUNCTION_TIMEOUTS). */
export function lambdaContext(functionName: string, requestId: string = randomUUID(), memoryMb = 1024, timeoutMs = 30_000): Context {
  const deadline = Date.now() + timeoutMs;
  const { arn, logGroupName } = namesOf(functionName);
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: arn,
    memoryLimitInMB: String(memoryMb),
    awsRequestId: requestId,
    logGroupName,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: noop,
    fail: noop,
    succeed: noop,
  };
}
