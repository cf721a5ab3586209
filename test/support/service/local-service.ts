import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { generateClientSecret } from '#shared/crypto/client-secret.ts';
import { apiDocsOf } from '#shared/openapi/api-docs.ts';
import { uuidv7 } from '#shared/store/core/uuidv7.ts';
import { type LocalStack, startLocalStack } from '../../../infra/local/local-stack.ts';
import { TEST_BUDGET_ENV } from './dynamodb.ts';
import { contractChecker, type Exchange } from './openapi-contract.ts';

export interface TestService {
  url: string;
  stack: LocalStack;
  clientId: string;
  clientSecret: string;
  /** The management API's audience (docs/contract.md §4). */
  managementAudience: string;
  /** A client_credentials token of the Default Client for the management API. */
  managementToken(scope?: string): Promise<string>;
  stop(): Promise<void>;
}

/**
 * The whole local service on a free port, on the run's DynamoDB Local with a fresh table, with
 * fixed Default Client credentials: the same code path as `npm start`.
 */
export async function startTestService(
  options: {
    env?: Record<string, string>;
    throttle?: { rateLimit: number; burstLimit: number };
    /** `stage-only`: the routes' own throttles are lifted (infra/local/local-stack.ts), for suites that send many requests per route. */
    routeThrottles?: 'routes' | 'stage-only';
    now?: () => Date;
    /**
     * Check every answer of this service against its OpenAPI document when it stops (`stop()`
     * throws, naming each mismatch; docs/openapi.md). Default: on when `OPENAPI_CONTRACT=1`.
     */
    contract?: boolean;
    /**
     * Stream the table's events to this file as `npm start` does (docs/events.md "Locally:
     * events.jsonl"). Off by default: a stream and its reader every 250 ms cost every other suite.
     */
    eventsFile?: string;
  } = {},
): Promise<TestService> {
  const contract = options.contract ?? process.env.OPENAPI_CONTRACT === '1';
  const exchanges: Exchange[] = [];
  const clientId = uuidv7(); // ids are UUIDv7 so that id order is creation order (docs/data-model.md)
  const clientSecret = generateClientSecret();
  const stack = await startLocalStack({
    port: 0,
    dataDir: null,
    dynamodbEndpoint: inject('dynamodbEndpoint'),
    tableName: `e2e-${randomUUID()}`,
    stageThrottle: options.throttle ?? { rateLimit: 10_000, burstLimit: 10_000 },
    ...(options.routeThrottles ? { routeThrottles: options.routeThrottles } : {}),
    defaultClientId: clientId,
    defaultClientSecret: clientSecret,
    env: { ...TEST_BUDGET_ENV, ...options.env },
    ...(options.now ? { now: options.now } : {}),
    ...(contract ? { observe: (x: Exchange) => exchanges.push(x) } : {}),
    ...(options.eventsFile ? { eventsFile: options.eventsFile } : {}),
  });
  const managementAudience = `${stack.url}/identity/v1/`;
  return {
    url: stack.url,
    stack,
    clientId,
    clientSecret,
    managementAudience,
    async managementToken(scope?: string) {
      const res = await fetch(`${stack.url}/token`, {
        method: 'POST',
        headers: { authorization: basicAuth(clientId, clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', audience: managementAudience, ...(scope ? { scope } : {}) }),
      });
      if (res.status !== 200) throw new Error(`token: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { access_token: string }).access_token;
    },
    async stop() {
      await stack.stop();
      if (!contract) return;
      const check = contractChecker(await apiDocsOf(stack.runtime).document());
      const problems = exchanges.flatMap(check);
      if (problems.length > 0) throw new Error(`Answers that do not match the OpenAPI document:\n${problems.join('\n')}`);
    },
  };
}

export const basicAuth = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
