import { resourcesCollection, shapeItem, type RecordParams } from '../../lists/index.ts';
import type { ResourceRecord } from '../../records/resource-record.ts';
import type { ResourceAccess, ResourceDeps } from './resource-deps.ts';
import { withResourceChildren } from './resource-children.ts';
import { resourceView } from './resource-view.ts';
import { revealSecrets } from './sealed-secret.ts';

/**
 * One resource as a response body: the view, its children with `expand=all`, `fields` applied
 * (spec §4.1), then the signing secret opened if it is still part of what is returned.
 */
export async function presentResource(
  deps: Pick<ResourceDeps, 'scopes' | 'links' | 'secretBox'>,
  record: ResourceRecord,
  access: ResourceAccess,
  params: RecordParams,
): Promise<Record<string, unknown>> {
  const view = resourceView(record, access.readsKeys);
  const wantsChildren = params.expand && (!params.fields || params.fields.some((f) => resourcesCollection.children.has(f)));
  const full = wantsChildren ? ((await withResourceChildren(deps, [view]))[0] ?? view) : view;
  const shaped = shapeItem(resourcesCollection, full, params);
  await revealSecrets([shaped], deps.secretBox);
  return shaped;
}
