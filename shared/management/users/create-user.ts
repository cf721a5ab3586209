import type { RecordParams } from '../../lists/index.ts';
import { resolveClientTenant } from '../clients/tenant-rules.ts';
import type { ManagementAccess } from '../kit/access.ts';
import { presentRecord } from '../kit/present-record.ts';
import type { CreateUserInput } from './user-body-schemas.ts';
import type { UserDeps } from './user-deps.ts';
import { userEntity } from './user-entity.ts';
import { assertHasLogin, assertPasswordAllowed } from './user-rules.ts';

/**
 * POST /users (docs/contract.md §6, §7.5): 201 with the User. `password` is write-only: checked against the
 * rules of docs/contract.md §7.2 (400 naming `body.password`), hashed with argon2id, and only the hash is
 * stored; no response carries either. The tenant: the request's, or `tenant_id` under the same
 * rules as for clients (clients/tenant-rules.ts). Uniqueness (409 naming the field) is the store's.
 */
export async function createUser(
  deps: UserDeps,
  access: ManagementAccess,
  input: CreateUserInput,
  params: RecordParams,
): Promise<Record<string, unknown>> {
  assertHasLogin(input);
  const { password, tenant_id, ...profile } = input;
  if (password !== undefined) assertPasswordAllowed(password, input);
  const tenantId = await resolveClientTenant(deps, access.ctx, tenant_id);
  const passwordHash = password === undefined ? undefined : await deps.hashPassword(password);
  const record = await deps.users.create(
    { ...profile, tenant_id: tenantId, ...(passwordHash !== undefined ? { password_hash: passwordHash } : {}) },
    access.ctx.actor,
  );
  return presentRecord(userEntity, deps, access, record, params);
}
