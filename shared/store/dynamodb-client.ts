import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export interface DynamoClientOptions {
  region: string;
  /** DynamoDB Local's address; unset in AWS. */
  endpoint?: string | undefined;
}

/**
 * A document client with the SDK's standard retries (throttling is retried with backoff before the
 * repository boundary turns it into a 503). Locally DynamoDB Local accepts any credentials.
 */
export function createDocumentClient({ region, endpoint }: DynamoClientOptions): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    region,
    maxAttempts: 4,
    ...(endpoint
      ? { endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
  });
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    unmarshallOptions: { wrapNumbers: false },
  });
}
