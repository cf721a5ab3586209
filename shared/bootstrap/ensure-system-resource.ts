import { isAppError } from '../errors.ts';
import { SYSTEM_ACTOR_ID } from '../records/common.ts';
import type { ResourceRecord } from '../records/resource-record.ts';
import { DEFAULT_TENANT_ID } from '../records/tenant-record.ts';
import type { ResourcesRepository } from '../store/resources/resources-repository.ts';
import type { ScopesRepository } from '../store/resources/scopes-repository.ts';

const isConflict = (e: unknown) => isAppError(e) && e.status === 409;

/** `read:clients` → "Read clients". */
export const describeScope = (name: string) => {
  const [action = '', object = ''] = name.split(':');
  return `${action.charAt(0).toUpperCase()}${action.slice(1)} ${object.replaceAll('_', ' ')}`;
};

/**
 * The management API as a system Resource (docs/contract.md §4) with one scope per management scope.
 * Found by its identifier_url marker (strongly consistent), created with all scopes in one
 * transaction; a concurrent start that created it first wins and we use theirs. Scopes added
 * by a newer version of the service (MANAGEMENT_SCOPES grew) are added one by one.
 */
export async function ensureSystemResource(
  resources: ResourcesRepository,
  scopes: ScopesRepository,
  managementAudience: string,
  scopeNames: readonly string[],
): Promise<ResourceRecord> {
  let id = await resources.findIdByIdentifier(DEFAULT_TENANT_ID, managementAudience);
  if (!id) {
    try {
      id = (
        await resources.create(
          {
            tenant_id: DEFAULT_TENANT_ID,
            resource_type: 'api',
            resource_name: 'Management API',
            resource_description: 'The identity service management API',
            resource_metadata: {
              identifier_url: managementAudience,
              is_system: true,
              signing_algorithm: 'ES256',
              token_lifetime: 3600,
              scopes_added: true,
            },
          },
          SYSTEM_ACTOR_ID,
          scopeNames.map((scope_name) => ({ scope_name, scope_description: describeScope(scope_name) })),
        )
      ).id;
    } catch (err) {
      if (!isConflict(err)) throw err;
      id = await resources.findIdByIdentifier(DEFAULT_TENANT_ID, managementAudience);
      if (!id) throw err;
    }
  }
  let resource = await resources.get(id);
  if (!resource) throw new Error(`Bootstrap: the management API resource ${id} vanished`);
  if (!resource.resource_metadata.is_system) {
    // Fail closed: someone's ordinary resource owns the management audience.
    throw new Error(`Bootstrap: resource ${id} uses the management audience ${managementAudience} but is not the system resource`);
  }
  const have = new Set(Object.values(resource.scope_names));
  const missing = scopeNames.filter((n) => !have.has(n));
  for (const scope_name of missing) {
    try {
      await scopes.create(id, { scope_name, scope_description: describeScope(scope_name) }, SYSTEM_ACTOR_ID);
    } catch (err) {
      if (!isConflict(err)) throw err; // a concurrent start added it
    }
  }
  if (missing.length) resource = (await resources.get(id))!;
  return resource;
}
