import { badRequest, forbidden } from '../../errors.ts';
import type { ResourceRecord, SigningAlgorithm } from '../../records/resource-record.ts';
import { RESOURCE_METADATA_DEFAULTS } from '../../records/resource-record.ts';
import type { ResourceMetadataBody, UpdateResourceBody } from './resource-bodies.ts';

/**
 * The cross-field rules of `resource_metadata` (spec §2.7, docs/contract.md §4-6) that a field schema cannot
 * express. Shared by create and modify so both answer the same way.
 */

const SECRET = 'body.resource_metadata.signing_secret';

/** HS256 signs with the resource's own secret (docs/contract.md §5.1): one must exist; other algorithms take none. */
function checkSecret(algorithm: SigningAlgorithm, given: boolean, stored: boolean): void {
  if (algorithm === 'HS256' && !given && !stored) throw badRequest(`${SECRET}: is required when signing_algorithm is HS256`);
  if (algorithm !== 'HS256' && given) throw badRequest(`${SECRET}: is only used when signing_algorithm is HS256`);
}

/** `is_system` marks the management API (docs/contract.md §4): bootstrap sets it, no caller can. */
function checkIsSystem(given: boolean | undefined, current: boolean): void {
  if (given !== undefined && given !== current) throw badRequest('body.resource_metadata.is_system: is read-only');
}

/**
 * The management API's identifier names the system resource and nothing else: a resource of a
 * tenant with that identifier would let the tenant mint management tokens with scopes it chose.
 */
function checkNotReserved(identifierUrl: string | undefined, managementAudience: string): void {
  if (identifierUrl === managementAudience) {
    throw forbidden('body.resource_metadata.identifier_url: is reserved for the management API.');
  }
}

export function checkNewMetadata(m: ResourceMetadataBody | undefined, managementAudience: string): void {
  checkIsSystem(m?.is_system, false);
  checkNotReserved(m?.identifier_url, managementAudience);
  checkSecret(m?.signing_algorithm ?? RESOURCE_METADATA_DEFAULTS.signing_algorithm, m?.signing_secret !== undefined, false);
}

export function checkResourcePatch(current: ResourceRecord, body: UpdateResourceBody, managementAudience: string): void {
  // Spec §4.3: resource_type is not part of the update body; the current value is tolerated so a
  // record read with GET can be sent back with PUT.
  if (body.resource_type !== undefined && body.resource_type !== current.resource_type) {
    throw badRequest('body.resource_type: cannot be changed');
  }
  const m = body.resource_metadata;
  if (!m) return;
  const now = current.resource_metadata;
  checkIsSystem(m.is_system, now.is_system);
  if (!now.is_system) checkNotReserved(m.identifier_url, managementAudience);
  const algorithm = m.signing_algorithm ?? now.signing_algorithm;
  // Management tokens are verified with the service's own keys (ES256/RS256): an HS256 management
  // API would lock every caller out.
  if (now.is_system && algorithm === 'HS256') throw forbidden("The management API's signing_algorithm cannot be HS256.");
  // A secret kept from an earlier HS256 period counts: switching back needs no new one.
  checkSecret(algorithm, m.signing_secret !== undefined, now.signing_secret !== undefined);
}
