import { defineCollection } from '../collection-spec.ts';
import { AUDIT_FIELDS } from './audit.ts';

/** `GET /tenants/{tenant_id}/admins` (docs/tenants.md "Tenant admins"): admin links, `user_data` under `expand=all`. */
export const tenantAdminsCollection = defineCollection({
  name: 'tenant-admins',
  attributes: { id: 'uuid', tenant_id: 'uuid', user_id: 'uuid', ...AUDIT_FIELDS },
  children: ['user_data'],
});
