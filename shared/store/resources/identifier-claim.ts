import type { AppError } from '../../errors.ts';
import type { ResourceRecord } from '../../records/resource-record.ts';
import { DEFAULT_TENANT_ID } from '../../records/tenant-record.ts';
import { type Condition, equals, notExists } from '../core/expression.ts';
import { putMarker } from '../core/markers.ts';
import { keys } from '../core/table-keys.ts';
import { checkItem, deleteItem, type Key, type Write } from '../core/writes.ts';
import { deleteIdentifierMarker, putIdentifierMarker } from '../token-path/resource-token-view.ts';

/**
 * A Resource's identifier_url is unique across the whole stage, not only in its tenant
 * (docs/management-resources.md "Identifier uniqueness"): every tenant's tokens share one `iss`
 * and one JWKS, so only a stage-wide unique `aud` keeps a resource server that validates as
 * RFC 9068 §4 says from accepting another tenant's token.
 *
 * Two markers per identifier, always written and removed together in one transaction:
 * - `UNIQUE#RESOURCE_ID_URL#{tenant}#{url}` (resource-token-view.ts): the token path's lookup in
 *   the client's tenant, carrying the token view;
 * - `UNIQUE#RESOURCE_ID_URL_STAGE#{url}`: the stage-wide claim, naming the resource and its tenant.
 *
 * Resources written before the stage-wide claim existed have only the per-tenant marker, and all
 * of them are in the default tenant (no other tenant could be created then). So a claim in any
 * other tenant also requires that the default tenant's marker for the identifier is absent: with
 * the default tenant's own put of its per-tenant marker, every holder of the identifier is
 * seen, whether or not its stage-wide marker has been backfilled yet
 * (shared/bootstrap/backfill-identifier-claims.ts).
 */
export const stageIdentifierKey = (identifierUrl: string): Key => keys.marker('RESOURCE_ID_URL_STAGE', identifierUrl);

/** The writes that claim `r`'s identifier_url (409 via `onTaken` if any resource of any tenant holds it). */
export function claimIdentifier(r: ResourceRecord, onTaken: () => AppError): Write[] {
  const url = r.resource_metadata.identifier_url;
  const writes = [
    putIdentifierMarker(r, onTaken),
    putMarker(stageIdentifierKey(url), r.id, { onTaken, attributes: { tenant_id: r.tenant_id } }),
  ];
  if (r.tenant_id !== DEFAULT_TENANT_ID) writes.push(checkItem(keys.marker('RESOURCE_ID_URL', DEFAULT_TENANT_ID, url), notExists, onTaken));
  return writes;
}

/**
 * The writes that free `r`'s identifier_url. The stage-wide marker may be missing (a resource
 * from before it, not yet backfilled), but is never removed while it names another resource.
 */
export function releaseIdentifier(r: ResourceRecord): Write[] {
  return [
    deleteIdentifierMarker(r),
    deleteItem(stageIdentifierKey(r.resource_metadata.identifier_url), { condition: absentOrNames(r.id) }),
  ];
}

const absentOrNames =
  (id: string): Condition =>
  (x) =>
    `${notExists(x)} OR ${equals('target_id', id)(x)}`;
