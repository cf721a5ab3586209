import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type DependencyBudget, sdkClientOptions } from '../../aws/dependency-budget.ts';

export interface DynamoClientOptions {
  region: string;
  /** DynamoDB Local's address; unset in AWS. */
  endpoint?: string | undefined;
  /** Connect and attempt timeouts and attempts (config.budgets.dynamodb). */
  budget: DependencyBudget;
  /** X-Ray subsegments per call where the function is traced (shared/observability/tracing.ts). */
  capture?: <C>(client: C) => C;
}

/**
 * A document client whose calls are bounded by the budget: a stalled or unreachable DynamoDB is a
 * TimeoutError or a socket error after `worstCaseMs(budget)`, and throttling is retried with short
 * backoffs before the repository boundary turns it into a 503. Locally DynamoDB Local accepts any
 * credentials.
 */
export function createDocumentClient({ region, endpoint, budget, capture = (c) => c }: DynamoClientOptions): DynamoDBDocumentClient {
  const client = capture(
    new DynamoDBClient({
      region,
      ...sdkClientOptions(budget),
      // Endpoint discovery stays off, whatever the environment or a config file says: the Lambda
      // bundles give its cache a stand-in LRU (infra/bundling/endpoint-lru-cache.ts).
      endpointDiscoveryEnabled: false,
      ...(endpoint ? { endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
    }),
  );
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    unmarshallOptions: { wrapNumbers: false },
  });
}
