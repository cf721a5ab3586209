import type { Caller } from '../../http/authenticate.ts';
import { clientPermissionsCollection, clientResourcesCollection, clientsCollection, listQuerySchema, recordQuerySchema } from '../../lists/index.ts';

/** Query schemas of this area, built once per container (docs/lists.md §9). */
export const clientRecordQuery = recordQuerySchema(clientsCollection);
export const clientListQuery = listQuerySchema(clientsCollection);
export const clientResourcesListQuery = listQuerySchema(clientResourcesCollection);
export const clientPermissionsListQuery = listQuerySchema(clientPermissionsCollection);

/** DESIGN.md §4: stored secrets are shown on reads only to tokens with `read:client_keys`. */
export const readsClientKeys = (caller: Caller | undefined): boolean => caller?.scopes.has('read:client_keys') ?? false;

/** Minting a new secret (also by turning a public client confidential) needs `update:client_keys`. */
export const rotatesClientKeys = (caller: Caller | undefined): boolean => caller?.scopes.has('update:client_keys') ?? false;
