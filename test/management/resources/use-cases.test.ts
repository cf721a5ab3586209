import { describe, expect, it } from 'vitest';
import type { RecordParams } from '#shared/lists/index.ts';
import { parseListParams, resourceClientsCollection, scopesCollection } from '#shared/lists/index.ts';
import { createClient } from '#shared/management/clients/create-client.ts';
import { authorizeResourceClients } from '#shared/management/resources/authorize-resource-clients.ts';
import { createResource } from '#shared/management/resources/create-resource.ts';
import { createResourceScope } from '#shared/management/resources/create-resource-scope.ts';
import { deleteResource } from '#shared/management/resources/delete-resource.ts';
import { getResource } from '#shared/management/resources/get-resource.ts';
import { listResourceClients } from '#shared/management/resources/list-resource-clients.ts';
import { listResourceScopes } from '#shared/management/resources/list-resource-scopes.ts';
import { accessOf, memoryWorld } from '../../support/management/memory-deps.ts';

/**
 * Use-case tier: the Resources use cases against in-memory deps. The same
 * behaviour over HTTP and DynamoDB Local is in test/management/resources/.
 */
const SECRET = 'an-hs256-secret-of-at-least-32-bytes!!';
const TENANT_B = '0190b1e0-0000-7000-8000-00000000000b';
const none: RecordParams = { fields: undefined, expand: false };

describe('Resources use cases on in-memory deps', () => {
  it('create derives urn:uuid:{id} when identifier_url is left out; the reserved management identifier is 403', async () => {
    const w = memoryWorld();
    const made = await createResource(w.resourceDeps, accessOf(), { resource_type: 'api', resource_name: 'a' }, none);
    expect(made.resource_metadata).toMatchObject({ identifier_url: `urn:uuid:${made.id}`, signing_algorithm: 'ES256', is_system: false });
    const reserved = { resource_type: 'api', resource_name: 'b', resource_metadata: { identifier_url: w.resourceDeps.managementAudience } };
    await expect(createResource(w.resourceDeps, accessOf(), reserved, none)).rejects.toMatchObject({ status: 403 });
    expect(w.resources.size).toBe(1);
  });

  it('an HS256 signing secret is shown (opened) only to a read:client_keys caller', async () => {
    const w = memoryWorld();
    const body = {
      resource_type: 'api',
      resource_name: 'hs',
      resource_metadata: { identifier_url: 'https://hs.example', signing_algorithm: 'HS256' as const, signing_secret: SECRET },
    };
    const made = await createResource(w.resourceDeps, accessOf({ readsKeys: false }), body, none);
    expect(made.resource_metadata).not.toHaveProperty('signing_secret');
    expect((await getResource(w.resourceDeps, accessOf(), String(made.id), none)).resource_metadata).toMatchObject({
      signing_secret: SECRET,
    });
    // Stored sealed, never in clear.
    expect(w.resources.get(String(made.id))!.resource_metadata.signing_secret).not.toBe(SECRET);
  });

  it('scopes: create, list with q; another tenant’s resource is a 404 for a tenant-bound caller', async () => {
    const w = memoryWorld();
    const r = await createResource(w.resourceDeps, accessOf(), { resource_type: 'api', resource_name: 'r' }, none);
    for (const name of ['read', 'write']) await createResourceScope(w.resourceDeps, accessOf(), String(r.id), { scope_name: name }, none);
    const listed = await listResourceScopes(
      w.resourceDeps,
      accessOf(),
      String(r.id),
      parseListParams(scopesCollection, { q: '(scope_name=write)' }),
    );
    expect(listed.items.map((s) => s.scope_name)).toEqual(['write']);
    await expect(
      listResourceScopes(
        w.resourceDeps,
        accessOf({ tenantId: TENANT_B, isGlobal: false }),
        String(r.id),
        parseListParams(scopesCollection, {}),
      ),
    ).rejects.toMatchObject({ status: 404 });
  });

  it('client links: authorized from the resource side, listed with client_data (no secret); the system resource cannot be deleted', async () => {
    const w = memoryWorld();
    const r = await createResource(w.resourceDeps, accessOf(), { resource_type: 'api', resource_name: 'r' }, none);
    const c = await createClient(w.clientDeps, accessOf(), { client_name: 'c' }, none);
    await authorizeResourceClients(w.resourceDeps, accessOf(), String(r.id), [String(c.id)]);
    const links = await listResourceClients(
      w.resourceDeps,
      accessOf(),
      String(r.id),
      parseListParams(resourceClientsCollection, { expand: 'all' }),
    );
    expect(links.items).toEqual([
      expect.objectContaining({ client_id: c.id, authorized: true, client_data: expect.objectContaining({ id: c.id }) }),
    ]);
    expect((links.items[0] as any).client_data).not.toHaveProperty('client_secret');
    w.resources.get(String(r.id))!.resource_metadata.is_system = true;
    await expect(deleteResource(w.resourceDeps, accessOf(), String(r.id))).rejects.toMatchObject({ status: 403 });
  });
});
