import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { translateError } from './translate-error.ts';

/**
 * Puts an item whose key is new: keyed by 256 random bits (a ticket, a session, an interaction),
 * which never collide, so the condition only makes an overwrite impossible. Errors are translated
 * at the boundary (translate-error.ts).
 */
export async function putNewItem(db: DynamoDBDocumentClient, tableName: string, item: Record<string, unknown>): Promise<void> {
  try {
    await db.send(new PutCommand({ TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(PK)' }));
  } catch (err) {
    translateError(err);
  }
}
