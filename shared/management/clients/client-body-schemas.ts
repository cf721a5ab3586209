import * as v from 'valibot';
import { bool, optionalText, text, timestamp, uuid } from '../kit/fields.ts';
import { clientFields } from './client-fields.ts';
import { ClientMetadataSchema } from './client-metadata-schema.ts';

/**
 * The Clients bodies (spec §4.3) and path. Unknown top-level fields are a 400 naming the field
 * on every body of this area (a typo such as `is_globl` must not silently keep the default).
 */

/**
 * Spec §2.2 names only "a single-page-app type"; the rest is Auth0's application types, which is
 * what docs/contract.md's "do what an Auth0 user expects" points at.
 */
export const CLIENT_TYPES = ['spa', 'native', 'regular_web', 'non_interactive'] as const;

export const CLIENT_LIMITS = { name: 128, description: 1024 } as const;

const clientType = v.picklist(CLIENT_TYPES, `must be one of ${CLIENT_TYPES.join(', ')}`);
const description = v.nullable(optionalText(CLIENT_LIMITS.description));
/** null: the secret never expires (docs/design.md §4; RFC 7591 §3.2.1 uses 0 for the same). */
const secretExpiry = v.nullable(timestamp);

/** The fields create and update share, all optional (spec §4.3). */
const sharedFields = {
  client_description: v.optional(description),
  client_metadata: v.optional(ClientMetadataSchema),
  app_metadata: v.optional(clientFields.appMetadata),
  is_public: v.optional(bool),
  is_first_party: v.optional(bool),
  is_global: v.optional(bool),
  tenant_id: v.optional(uuid),
  client_secret_expires_at: v.optional(secretExpiry),
};

/** Spec §4.3 "Client create body" plus app_metadata and the secret's expiry. */
export const CreateClientBody = clientFields.object({
  client_name: text(CLIENT_LIMITS.name),
  client_type: v.optional(clientType),
  ...sharedFields,
});
export type CreateClientInput = v.InferOutput<typeof CreateClientBody>;

/** Spec §4.3 "Client update body": everything optional, merged into the record (docs/contract.md §6). */
export const UpdateClientBody = clientFields.object({
  client_name: v.optional(text(CLIENT_LIMITS.name)),
  // Spec §4.3: "client_type is not part of the update body". Refused rather than ignored.
  client_type: v.optional(v.never('cannot be changed after create (spec §4.3)')),
  ...sharedFields,
});
export type UpdateClientInput = v.InferOutput<typeof UpdateClientBody>;

export const ClientPath = clientFields.object({ client_id: uuid });
