import { tenantAdminsCollection } from '../../lists/collections/tenant-admins.ts';
import { tenantsCollection } from '../../lists/collections/tenants.ts';
import { listQuerySchema, recordQuerySchema } from '../../lists/index.ts';

/** Query schemas of this area, built once per container (docs/lists.md §9). */
export const tenantRecordQuery = recordQuerySchema(tenantsCollection);
export const tenantListQuery = listQuerySchema(tenantsCollection);
export const tenantAdminListQuery = listQuerySchema(tenantAdminsCollection);
