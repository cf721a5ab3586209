import * as v from 'valibot';
import { closedObject, uuid } from './client-fields.ts';

/** API.md §6: link changes take at most 50 ids and are all-or-nothing. */
export const MAX_LINK_IDS = 50;

const ids = (what: string) =>
  v.pipe(
    v.array(uuid, `must be an array of ${what} ids`),
    v.minLength(1, `must hold 1 to ${MAX_LINK_IDS} ${what} ids`),
    v.maxLength(MAX_LINK_IDS, `must hold 1 to ${MAX_LINK_IDS} ${what} ids`),
  );

/** `{resources: [resource_id]}` of authorize / revoke (spec §4.3). */
export const ResourcesBody = closedObject({ resources: ids('resource') });
export type ResourcesInput = v.InferOutput<typeof ResourcesBody>;

/**
 * `{permissions: [{resource_id, scopes: [scope_id]}]}` of grant / revoke (spec §4.3). The 50-id
 * bound of API.md §6 counts scope ids over the whole body: that is the number of permission
 * records the call changes.
 */
export const PermissionsBody = closedObject({
  permissions: v.pipe(
    v.array(closedObject({ resource_id: uuid, scopes: ids('scope') }), 'must be an array of {resource_id, scopes}'),
    v.minLength(1, `must hold 1 to ${MAX_LINK_IDS} entries`),
    v.check((ps) => ps.reduce((n, p) => n + p.scopes.length, 0) <= MAX_LINK_IDS, `must name at most ${MAX_LINK_IDS} scope ids in all`),
  ),
});
export type PermissionsInput = v.InferOutput<typeof PermissionsBody>;
