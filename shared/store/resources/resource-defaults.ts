import { randomBytes } from 'node:crypto';
import type { SecretBox } from '../../ports/secret-box.ts';
import { type NewResource, RESOURCE_METADATA_DEFAULTS, type ResourceMetadata, type ResourceRecord } from '../../records/resource-record.ts';

/**
 * Seals a plaintext HS256 secret; an HS256 resource without one gets a 256-bit random secret
 * (RFC 7518 §3.2: the key must be at least as long as the hash), so no token is ever signed with
 * an empty key. Returns the metadata with `signing_secret` sealed (or unchanged when not given).
 */
export async function sealSigningSecret(
  metadata: ResourceMetadata,
  plaintext: string | undefined,
  secretBox: SecretBox,
): Promise<ResourceMetadata> {
  if (plaintext !== undefined) return { ...metadata, signing_secret: await secretBox.seal(plaintext) };
  if (metadata.signing_algorithm === 'HS256' && !metadata.signing_secret) {
    return { ...metadata, signing_secret: await secretBox.seal(randomBytes(32).toString('base64url')) };
  }
  return metadata;
}

export async function newResourceRecord(
  id: string,
  input: NewResource,
  actor: string,
  at: string,
  secretBox: SecretBox,
): Promise<ResourceRecord> {
  const { signing_secret: plaintext, ...given } = input.resource_metadata;
  const metadata = await sealSigningSecret({ ...RESOURCE_METADATA_DEFAULTS, ...given }, plaintext, secretBox);
  return {
    id,
    tenant_id: input.tenant_id,
    resource_type: input.resource_type,
    resource_name: input.resource_name,
    ...(input.resource_description !== undefined ? { resource_description: input.resource_description } : {}),
    resource_metadata: metadata,
    app_metadata: input.app_metadata ?? [],
    scope_names: {},
    scope_holders: {},
    aggregations: { scopes: 0, clients: 0 },
    links_version: 0,
    version: 1,
    created_by: actor,
    created_date: at,
    updated_by: actor,
    updated_date: at,
  };
}
