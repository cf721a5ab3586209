import { beforeAll, describe, expect, it } from 'vitest';
import { ACTOR, type StoreFixture, storeFixture } from '../support/store/store-fixture.ts';

let f: StoreFixture;
beforeAll(async () => {
  f = await storeFixture('update-races');
});

describe('client update races (docs/data-model.md §1)', () => {
  it('a tenant move that races a resource authorization loses with 409: no client of tenant B is linked into tenant A', async () => {
    const client = await f.clients.create({ tenant_id: f.tenantId, client_name: 'mover' }, ACTOR);
    const resource = await f.resources.create(
      {
        tenant_id: f.tenantId,
        resource_type: 'api',
        resource_name: 'r',
        resource_metadata: { identifier_url: 'https://race.example/api' },
      },
      ACTOR,
    );
    const tenantB = '019b0000-0000-7000-8000-00000000bbbb';
    let attempts = 0;
    // The authorization lands between the move's read (no links yet) and its write.
    const move = f.clients.update(client.id, { tenant_id: tenantB }, ACTOR, {
      validate: async () => {
        attempts += 1;
        if (attempts === 1) await f.links.authorize(client.id, [resource.id], ACTOR);
      },
    });
    await expect(move).rejects.toMatchObject({ status: 409, message: expect.stringMatching(/^body\.tenant_id: /) });
    expect(attempts).toBe(2); // the first write lost on links_version, the re-read saw the link
    expect(await f.clients.get(client.id)).toMatchObject({ tenant_id: f.tenantId, aggregations: { resources: 1 } });
  });

  it("the caller's rules run again on the record actually written after a lost race", async () => {
    const client = await f.clients.create({ tenant_id: f.tenantId, client_name: 'rules' }, ACTOR);
    const seen: string[] = [];
    let attempts = 0;
    await f.clients.update(client.id, { client_description: 'mine' }, ACTOR, {
      validate: async (current) => {
        attempts += 1;
        seen.push(current.client_name);
        if (attempts === 1) await f.clients.update(client.id, { client_name: 'renamed meanwhile' }, ACTOR);
      },
    });
    expect(seen).toEqual(['rules', 'renamed meanwhile']);
    expect(await f.clients.get(client.id)).toMatchObject({ client_name: 'renamed meanwhile', client_description: 'mine' });
  });
});
