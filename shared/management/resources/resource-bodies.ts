import * as v from 'valibot';
import {
  appMetadata,
  bool,
  description,
  identifierUrl,
  label,
  LIMITS,
  jsonObject,
  signingAlgorithm,
  signingSecret,
  tokenLifetime,
} from './resource-fields.ts';

/**
 * Request bodies of `POST /resources` and `PATCH|PUT /resources/{id}` (spec §4.3 "Resource create
 * body" / "Resource update body", fields of §2.7). Unknown members are dropped, so a record read
 * with GET can be sent back with PUT (its `id`, `aggregations`, dates... are ignored); the
 * cross-field rules (HS256 needs a secret, `is_system` is read-only) live in the use cases.
 */

/** Every member optional: create adds its own requirements, modify merges (API.md §6). */
const metadataEntries = {
  /** Read-only (API.md §4): accepted only with the value the record already has. */
  is_system: v.optional(bool()),
  identifier_url: v.optional(identifierUrl),
  signing_algorithm: v.optional(signingAlgorithm),
  signing_secret: v.optional(signingSecret),
  token_lifetime: v.optional(tokenLifetime),
  rbac_enabled: v.optional(bool()),
  scopes_added: v.optional(bool()),
  skip_consent_for_first_party: v.optional(bool()),
};

const resourceMetadata = jsonObject(metadataEntries);

export const createResourceBody = jsonObject({
  resource_type: label(LIMITS.resourceType),
  resource_name: label(LIMITS.resourceName),
  resource_description: v.optional(description(LIMITS.description)),
  resource_metadata: v.optional(resourceMetadata),
  // Not in the spec's create body, but in the record and its update body: accepted on create too.
  app_metadata: v.optional(appMetadata),
});

export const updateResourceBody = jsonObject({
  /** Not modifiable (spec §4.3): accepted only with the current value, for GET→PUT round trips. */
  resource_type: v.optional(label(LIMITS.resourceType)),
  resource_name: v.optional(label(LIMITS.resourceName)),
  resource_description: v.optional(description(LIMITS.description)),
  resource_metadata: v.optional(resourceMetadata),
  app_metadata: v.optional(appMetadata),
});

export type CreateResourceBody = v.InferOutput<typeof createResourceBody>;
export type UpdateResourceBody = v.InferOutput<typeof updateResourceBody>;
export type ResourceMetadataBody = v.InferOutput<typeof resourceMetadata>;
