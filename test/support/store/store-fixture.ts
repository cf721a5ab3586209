import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { clientLinksRepository } from '#shared/store/clients/client-links-repository.ts';
import { clientPermissionsRepository } from '#shared/store/clients/client-permissions-repository.ts';
import { clientsRepository } from '#shared/store/clients/clients-repository.ts';
import { resourcesRepository } from '#shared/store/resources/resources-repository.ts';
import { scopesRepository } from '#shared/store/resources/scopes-repository.ts';
import { tenantsRepository } from '#shared/store/tenants/tenants-repository.ts';
import { usersRepository } from '#shared/store/users/users-repository.ts';
import { aesSecretBox } from '../keys/aes-secret-box.ts';
import { createTestTable, type TestTable } from '../service/dynamodb.ts';

/** A fresh table with every repository of the data layer wired to it and a settable clock. */
export async function storeFixture(prefix: string) {
  const table: TestTable = await createTestTable(prefix);
  let clock = new Date('2026-01-15T10:00:00.000Z');
  const now = () => clock;
  const secretBox = aesSecretBox();
  const { db, tableName } = table;
  const resources = resourcesRepository(db, tableName, now, secretBox);
  return {
    ...table,
    secretBox,
    now,
    setNow: (d: Date) => {
      clock = d;
    },
    tenantId: DEFAULT_TENANT_ID,
    /** The resource an identifier_url names in a tenant (via its marker, consistently). */
    async resourceByIdentifier(tenantId: string, url: string) {
      const id = await resources.findIdByIdentifier(tenantId, url);
      return id ? resources.get(id) : undefined;
    },
    tenants: tenantsRepository(db, tableName, now),
    clients: clientsRepository(db, tableName, now, secretBox),
    resources,
    scopes: scopesRepository(db, tableName, now),
    links: clientLinksRepository(db, tableName, now),
    permissions: clientPermissionsRepository(db, tableName, now),
    users: usersRepository(db, tableName, now),
  };
}

export type StoreFixture = Awaited<ReturnType<typeof storeFixture>>;

export const ACTOR = '019b0000-0000-7000-8000-0000000000aa';

let n = 0;
/** A resource create body with a fresh identifier. */
export const newResource = (tenantId: string, extra: Record<string, unknown> = {}) => ({
  tenant_id: tenantId,
  resource_type: 'api',
  resource_name: `API ${++n}`,
  resource_metadata: { identifier_url: `https://api-${n}-${Math.random().toString(36).slice(2)}.example.com/` },
  ...extra,
});
