import * as v from 'valibot';
import { optionalText } from '../kit/fields.ts';
import { LIMITS, resourceFields, scopeName } from './resource-fields.ts';

/** `POST /resources/{id}/scopes` (docs/contract.md §6: `{scope_name, scope_description}`, spec §2.8). */
export const createScopeBody = resourceFields.object({
  scope_name: scopeName,
  scope_description: v.optional(optionalText(LIMITS.scopeDescription)),
});

/** `PATCH|PUT /resources/{id}/scopes/{scope_id}`: merges (docs/contract.md §6). */
export const updateScopeBody = resourceFields.object({
  scope_name: v.optional(scopeName),
  scope_description: v.optional(optionalText(LIMITS.scopeDescription)),
});

export type CreateScopeBody = v.InferOutput<typeof createScopeBody>;
export type UpdateScopeBody = v.InferOutput<typeof updateScopeBody>;
