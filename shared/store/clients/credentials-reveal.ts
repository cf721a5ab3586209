import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../core/table-keys.ts';
import { translateError } from '../core/translate-error.ts';

/**
 * The "Default Client secret has been shown" marker: PK `BOOTSTRAP`, SK `DEFAULT_CLIENT_SECRET_SHOWN`,
 * `client_id`, `shown_at`. In AWS the deploy-time bootstrap creates the Default Client but cannot
 * show its secret (a custom resource response is visible in the CloudFormation console), so the
 * secret stays sealed in the client record until `npm run bootstrap` asks for it; this marker makes
 * that happen once per stage.
 */
const MARKER_KEY = keys.defaultClientSecretShown;

export interface CredentialsReveal {
  /** True once any caller has been given the secret. */
  shown(): Promise<boolean>;
  /** Records that `clientId`'s secret is being shown; false if someone else already did (a race or an earlier run). */
  claim(clientId: string): Promise<boolean>;
}

export function credentialsReveal(db: DynamoDBDocumentClient, tableName: string, now: () => Date): CredentialsReveal {
  return {
    async shown() {
      try {
        const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: MARKER_KEY, ConsistentRead: true }));
        return Item !== undefined;
      } catch (err) {
        return translateError(err);
      }
    },
    async claim(clientId) {
      try {
        await db.send(
          new PutCommand({
            TableName: tableName,
            Item: { ...MARKER_KEY, type: 'BootstrapMarker', schema_version: 1, client_id: clientId, shown_at: now().toISOString() },
            ConditionExpression: 'attribute_not_exists(PK)',
          }),
        );
        return true;
      } catch (err) {
        if ((err as { name?: string }).name === 'ConditionalCheckFailedException') return false;
        return translateError(err);
      }
    },
  };
}
