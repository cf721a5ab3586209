import { tenantsCollection } from '../../lists/collections/tenants.ts';
import type { TenantRecord } from '../../records/tenant-record.ts';
import { defineEntity, pickView } from '../kit/entity.ts';
import type { TenantDeps } from './tenant-deps.ts';

/** A Tenant (docs/contract.md §6) as callers see it; `version` is storage-only and not listed. */
export const tenantEntity = defineEntity<TenantRecord, TenantDeps>({
  noun: 'Tenant',
  collection: tenantsCollection,
  view: pickView<TenantRecord>([
    'id',
    'tenant_name',
    'tenant_description',
    'tenant_metadata',
    'is_default',
    'created_by',
    'created_at',
    'updated_by',
    'updated_at',
  ]),
});
