import { notFound } from '../../errors.ts';
import type { RecordParams } from '../../lists/index.ts';
import { uuidv7 } from '../../store/core/uuidv7.ts';
import type { ManagementAccess } from '../kit/access.ts';
import { presentRecord } from '../kit/present-record.ts';
import { checkNewMetadata } from './metadata-rules.ts';
import type { CreateResourceBody } from './resource-bodies.ts';
import type { ResourceDeps } from './resource-deps.ts';
import { resourceEntity } from './resource-entity.ts';

/**
 * `POST /resources` (spec §4.3 "Create a resource", docs/contract.md §6): 201 with the Resource, in the
 * caller's tenant (docs/contract.md §4). `identifier_url` is unique stage-wide (409, enforced by the
 * repository's marker, so parallel creates give exactly one 201); when left out it is derived from
 * the new id as `urn:uuid:{id}` (RFC 4122 §3), because the spec makes `resource_metadata` optional
 * while every resource needs an audience (docs/management-resources.md).
 */
export async function createResource(
  deps: ResourceDeps,
  access: ManagementAccess,
  body: CreateResourceBody,
  params: RecordParams,
): Promise<Record<string, unknown>> {
  checkNewMetadata(body.resource_metadata, deps.managementAudience);
  const tenantId = access.ctx.tenantId;
  // A global caller's `tenant_id` header is not checked against the tenants (management-context.ts):
  // never create a resource in a tenant that does not exist.
  if (deps.multiTenant && !(await deps.tenants.get(tenantId))) throw notFound('header.tenant_id: names no tenant.');
  const id = uuidv7();
  const { is_system: _readOnly, ...metadata } = body.resource_metadata ?? {};
  const record = await deps.resources.create(
    {
      id,
      tenant_id: tenantId,
      resource_type: body.resource_type,
      resource_name: body.resource_name,
      ...(body.resource_description !== undefined ? { resource_description: body.resource_description } : {}),
      resource_metadata: { ...metadata, identifier_url: metadata.identifier_url ?? `urn:uuid:${id}` },
      ...(body.app_metadata ? { app_metadata: body.app_metadata } : {}),
    },
    access.ctx.actor,
  );
  // The token path caches misses too: a token asked for this audience a moment ago must not keep failing.
  deps.forgetResources();
  return presentRecord(resourceEntity, deps, access, record, params);
}
