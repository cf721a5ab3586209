import { arraySource, type FilterTerm, type ListEnvelope, type ListParams } from '../../lists/index.ts';
import type { UserLoginKind, UserRecord } from '../../records/user-record.ts';
import type { ManagementAccess } from '../kit/access.ts';
import { listRecords } from '../kit/present-record.ts';
import type { UserDeps } from './user-deps.ts';
import { userEntity } from './user-entity.ts';

const LOGIN_ATTRIBUTES: ReadonlySet<string> = new Set<UserLoginKind>(['email', 'username', 'phone_number']);

type LoginTerm = FilterTerm & { attribute: UserLoginKind; value: { kind: 'string'; value: string } };
const isLoginTerm = (t: FilterTerm): t is LoginTerm => LOGIN_ATTRIBUTES.has(t.attribute) && t.value.kind === 'string';

/**
 * GET /users (docs/contract.md §3, §6). `q=(email=...)`, `(username=...)` and `(phone_number=...)` are
 * lookups of the uniqueness markers (one GetItem each, then the user): never a read of the
 * collection, whatever its size. Email and username match without case, as their uniqueness does.
 * The other terms of `q` then filter that one record as the list machinery does; a `q` without
 * such a term (or `(email=null)`) takes the general path of every list.
 */
export async function listUsers(deps: UserDeps, access: ManagementAccess, params: ListParams): Promise<ListEnvelope> {
  const tenantId = access.ctx.tenantId;
  const collection = deps.users.collection(tenantId);
  const lookups = params.filter.filter(isLoginTerm);
  if (lookups.length === 0) return listRecords(userEntity, deps, access, collection, params, await deps.cursorKey());

  const ids = await Promise.all(lookups.map((t) => deps.users.findIdByLogin(tenantId, t.attribute, t.value.value)));
  const id = ids[0];
  const user = id !== undefined && ids.every((x) => x === id) ? await deps.users.get(id) : undefined;
  const found: UserRecord[] = user && user.tenant_id === tenantId ? [user] : [];
  const rest = params.filter.filter((t) => !isLoginTerm(t));
  return listRecords(userEntity, deps, access, arraySource(collection.id, found), { ...params, filter: rest }, await deps.cursorKey());
}
