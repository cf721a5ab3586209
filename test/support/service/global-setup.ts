import type { TestProject } from 'vitest/node';
import { type DynamoDbLocal, startDynamoDbLocal } from '../../../infra/local/dynamodb-local.ts';

let ddb: DynamoDbLocal | undefined;

/** One in-memory DynamoDB Local for the whole run; test files each create their own table. */
export async function setup(project: TestProject): Promise<void> {
  ddb = await startDynamoDbLocal({ dataDir: null });
  project.provide('dynamodbEndpoint', ddb.endpoint);
}

export async function teardown(): Promise<void> {
  await ddb?.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
  }
}
