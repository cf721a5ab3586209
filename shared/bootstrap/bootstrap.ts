import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { embedKeysInStates } from '../keys/embed-keys-in-states.ts';
import type { SecretBox } from '../keys/key-store.ts';
import { signingKeysRepository } from '../keys/signing-keys-repository.ts';
import { logger } from '../logger.ts';
import { MANAGEMENT_SCOPES } from '../routes/management-scopes.ts';
import { clientLinksRepository } from '../store/clients/client-links-repository.ts';
import { clientPermissionsRepository } from '../store/clients/client-permissions-repository.ts';
import { clientsRepository } from '../store/clients/clients-repository.ts';
import { resourcesRepository } from '../store/resources/resources-repository.ts';
import { scopesRepository } from '../store/resources/scopes-repository.ts';
import { tenantsRepository } from '../store/tenants/tenants-repository.ts';
import { reconcileTokenViews } from '../store/token-path/reconcile-token-views.ts';
import { backfillIdentifierClaims } from './backfill-identifier-claims.ts';
import { backfillRevocationLog } from './backfill-revocation-log.ts';
import { type DefaultClientResult, ensureDefaultClient } from './ensure-default-client.ts';
import { ensureSystemResource } from './ensure-system-resource.ts';
import { resealSecrets } from './reseal-secrets.ts';

export interface BootstrapInput {
  db: DynamoDBDocumentClient;
  tableName: string;
  secretBox: SecretBox;
  now: () => Date;
  /** `{issuer}/identity/v1/`: the management API's identifier_url (docs/contract.md §4). */
  managementAudience: string;
  /** DEFAULT_CLIENT_ID, read at the composition root: the Default Client gets exactly this id. */
  defaultClientId?: string | undefined;
  /** DEFAULT_CLIENT_SECRET: the Default Client's secret; an existing different one is replaced (and notified). */
  defaultClientSecret?: string | undefined;
  /** Receives what the operator must be told (one sentence each), e.g. that a secret was replaced. */
  notify?: (notice: string) => void;
}

export type BootstrapResult = DefaultClientResult;

/**
 * Makes the records the service cannot run without, and nothing else: the default tenant, the
 * management API as a system Resource with every management scope, and the Default Client with
 * all of them. Idempotent and safe to run on every start, also by several processes at once:
 * each record is created under a uniqueness condition and a loser reads the winner's.
 * `clientSecret` is returned only when this call generated it (print it once).
 */
export async function bootstrap(input: BootstrapInput): Promise<BootstrapResult> {
  const { db, tableName, now, secretBox } = input;
  const clients = clientsRepository(db, tableName, now, secretBox);
  const resources = resourcesRepository(db, tableName, now, secretBox);
  const scopes = scopesRepository(db, tableName, now);
  await tenantsRepository(db, tableName, now).ensureDefault();
  // The token path's copies in line with their sources (docs/data-model.md "Migrations"), before
  // anything here writes scopes or links, which update the copies in place.
  const repaired = await reconcileTokenViews(db, tableName, now);
  const statesUpgraded = await embedKeysInStates(signingKeysRepository(db, tableName), now);
  if (repaired.clients || repaired.resources || statesUpgraded)
    logger.info('token path copies repaired', { ...repaired, key_states: statesUpgraded });
  // After the copies are in line: a Resource's secret is resealed on the record and its marker together.
  const resealed = await resealSecrets(db, tableName, secretBox, now);
  if (resealed.clients || resealed.resources || resealed.failed) logger.info('sealed secrets moved to the data key', { ...resealed });
  const logged = await backfillRevocationLog(db, tableName, now);
  if (logged.copied) logger.info('revocations copied into the revocation log', { copied: logged.copied });
  const claims = await backfillIdentifierClaims(db, tableName, now);
  if (claims.claimed || claims.failed) logger.info('identifier_url markers claimed stage-wide', { ...claims });
  const system = await ensureSystemResource(resources, scopes, input.managementAudience, MANAGEMENT_SCOPES);
  return ensureDefaultClient(
    { clients, links: clientLinksRepository(db, tableName, now), permissions: clientPermissionsRepository(db, tableName, now) },
    system,
    { id: input.defaultClientId, secret: input.defaultClientSecret },
    input.notify,
  );
}
