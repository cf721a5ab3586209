import * as v from 'valibot';
import { description, LIMITS, jsonObject, scopeName } from './resource-fields.ts';

/** `POST /resources/{id}/scopes` (API.md §6: `{scope_name, scope_description}`, spec §2.8). */
export const createScopeBody = jsonObject({
  scope_name: scopeName,
  scope_description: v.optional(description(LIMITS.scopeDescription)),
});

/** `PATCH|PUT /resources/{id}/scopes/{scope_id}`: merges (API.md §6). */
export const updateScopeBody = jsonObject({
  scope_name: v.optional(scopeName),
  scope_description: v.optional(description(LIMITS.scopeDescription)),
});

export type CreateScopeBody = v.InferOutput<typeof createScopeBody>;
export type UpdateScopeBody = v.InferOutput<typeof updateScopeBody>;
