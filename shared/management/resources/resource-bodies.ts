import * as v from 'valibot';
import { bool, optionalText, text } from '../kit/fields.ts';
import { identifierUrl, LIMITS, resourceFields, signingAlgorithm, signingSecret, tokenLifetime } from './resource-fields.ts';

/**
 * Request bodies of `POST /resources` and `PATCH|PUT /resources/{id}` (spec §4.3 "Resource create
 * body" / "Resource update body", fields of §2.7). Unknown members are dropped, so a record read
 * with GET can be sent back with PUT (its `id`, `aggregations`, dates... are ignored); the
 * cross-field rules (HS256 needs a secret, `is_system` is read-only) live in the use cases.
 */

/** Every member optional: create adds its own requirements, modify merges (docs/contract.md §6). */
const metadataEntries = {
  /** Read-only (docs/contract.md §4): accepted only with the value the record already has. */
  is_system: v.optional(bool),
  identifier_url: v.optional(identifierUrl),
  signing_algorithm: v.optional(signingAlgorithm),
  signing_secret: v.optional(signingSecret),
  token_lifetime: v.optional(tokenLifetime),
  rbac_enabled: v.optional(bool),
  scopes_added: v.optional(bool),
  skip_consent_for_first_party: v.optional(bool),
};

const resourceMetadata = resourceFields.object(metadataEntries);

export const createResourceBody = resourceFields.object({
  resource_type: text(LIMITS.resourceType),
  resource_name: text(LIMITS.resourceName),
  resource_description: v.optional(optionalText(LIMITS.description)),
  resource_metadata: v.optional(resourceMetadata),
  // Not in the spec's create body, but in the record and its update body: accepted on create too.
  app_metadata: v.optional(resourceFields.appMetadata),
});

export const updateResourceBody = resourceFields.object({
  /** Not modifiable (spec §4.3): accepted only with the current value, for GET→PUT round trips. */
  resource_type: v.optional(text(LIMITS.resourceType)),
  resource_name: v.optional(text(LIMITS.resourceName)),
  resource_description: v.optional(optionalText(LIMITS.description)),
  resource_metadata: v.optional(resourceMetadata),
  app_metadata: v.optional(resourceFields.appMetadata),
});

export type CreateResourceBody = v.InferOutput<typeof createResourceBody>;
export type UpdateResourceBody = v.InferOutput<typeof updateResourceBody>;
export type ResourceMetadataBody = v.InferOutput<typeof resourceMetadata>;
