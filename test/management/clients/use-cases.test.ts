import { describe, expect, it } from 'vitest';
import type { RecordParams } from '#shared/lists/index.ts';
import { clientsCollection, parseListParams } from '#shared/lists/index.ts';
import { authorizeClientResources } from '#shared/management/clients/authorize-client-resources.ts';
import { createClient } from '#shared/management/clients/create-client.ts';
import { getClient } from '#shared/management/clients/get-client.ts';
import { grantClientPermissions } from '#shared/management/clients/grant-client-permissions.ts';
import { listClients } from '#shared/management/clients/list-clients.ts';
import { updateClient } from '#shared/management/clients/update-client.ts';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { accessOf, memoryWorld } from '../../support/management/memory-deps.ts';

/**
 * Use-case tier: the Clients use cases against in-memory deps. What they decide
 * (secrets shown or not, tenant visibility, scopes needed, expansion) without the store; the same
 * behaviour over HTTP and DynamoDB Local is in test/management/clients/.
 */
const TENANT_B = '0190b1e0-0000-7000-8000-00000000000b';
const none: RecordParams = { fields: undefined, expand: false };

describe('Clients use cases on in-memory deps', () => {
  it('create shows the new secret in clear once; get shows it only to a read:client_keys caller', async () => {
    const w = memoryWorld();
    const made = await createClient(w.clientDeps, accessOf({ readsKeys: false }), { client_name: 'svc' }, none);
    expect(made.client_secret).toEqual(expect.any(String));
    expect(made).not.toHaveProperty('secret_hash');
    expect(w.forgotten).toEqual([made.id]);
    expect(await getClient(w.clientDeps, accessOf({ readsKeys: false }), String(made.id), none)).not.toHaveProperty('client_secret');
    expect((await getClient(w.clientDeps, accessOf(), String(made.id), none)).client_secret).toBe(made.client_secret);
    // `fields` applies before the secret is opened: left out, it is not shown.
    expect(await getClient(w.clientDeps, accessOf(), String(made.id), { fields: ['id'], expand: false })).toEqual({ id: made.id });
  });

  it('another tenant’s client is a 404 for a tenant-bound caller, visible to a global one', async () => {
    const w = memoryWorld();
    const made = await createClient(w.clientDeps, accessOf(), { client_name: 'a' }, none);
    const bound = accessOf({ tenantId: TENANT_B, isGlobal: false });
    await expect(getClient(w.clientDeps, bound, String(made.id), none)).rejects.toMatchObject({ status: 404 });
    expect((await getClient(w.clientDeps, accessOf({ tenantId: TENANT_B }), String(made.id), none)).id).toBe(made.id);
  });

  it('turning a public client confidential needs update:client_keys (403), and then shows the new secret', async () => {
    const w = memoryWorld();
    const spa = await createClient(w.clientDeps, accessOf(), { client_name: 'spa', is_public: true }, none);
    await expect(
      updateClient(w.clientDeps, accessOf({ rotatesKeys: false }), String(spa.id), { is_public: false }, none),
    ).rejects.toMatchObject({ status: 403 });
    const updated = await updateClient(w.clientDeps, accessOf(), String(spa.id), { is_public: false }, none);
    expect(updated).toMatchObject({ is_public: false, client_secret: expect.any(String) });
  });

  it('expand=all: the client’s links and permissions carry resource_data and scope_data', async () => {
    const w = memoryWorld();
    const resource = await w.resourceDeps.resources.create(
      {
        tenant_id: DEFAULT_TENANT_ID,
        resource_type: 'api',
        resource_name: 'api',
        resource_metadata: { identifier_url: 'https://api.example' },
      },
      'x',
    );
    const scope = await w.resourceDeps.scopes.create(resource.id, { scope_name: 'read' }, 'x');
    const made = await createClient(w.clientDeps, accessOf(), { client_name: 'c' }, none);
    await authorizeClientResources(w.clientDeps, accessOf(), String(made.id), [resource.id]);
    await grantClientPermissions(w.clientDeps, accessOf(), String(made.id), [{ resource_id: resource.id, scopes: [scope.id] }]);
    const page = await listClients(w.clientDeps, accessOf(), parseListParams(clientsCollection, { expand: 'all' }));
    const item = page.items[0] as Record<string, any>;
    expect(item.resources).toEqual([
      expect.objectContaining({
        resource_id: resource.id,
        resource_data: expect.objectContaining({ id: resource.id, resource_name: 'api' }),
      }),
    ]);
    expect(item.permissions).toEqual([
      expect.objectContaining({ scope_id: scope.id, scope_data: expect.objectContaining({ scope_name: 'read' }) }),
    ]);
    expect(item.aggregations).toMatchObject({ resources: 1, permissions: 1 });
  });
});
