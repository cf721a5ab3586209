import type { ResourceRecord } from '../../records/resource-record.ts';
import { assertVisible, type ManagementContext } from '../management-context.ts';
import type { ResourceDeps } from './resource-deps.ts';

/** The resource by id, or 404 when it does not exist or belongs to a tenant the caller cannot see (API.md §4). */
export async function loadResource(deps: Pick<ResourceDeps, 'resources'>, id: string, ctx: ManagementContext): Promise<ResourceRecord> {
  return assertVisible(await deps.resources.get(id), ctx, `Resource ${id}`);
}
