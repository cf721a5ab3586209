import { jsonResponse, NO_STORE, type HttpResponse } from '../../http/response.ts';
import { clientsCollection, shapeItem, type RecordParams } from '../../lists/index.ts';
import { wantsChildren } from '../../lists/shape-item.ts';
import type { ClientRecord } from '../../records/client-record.ts';
import type { ClientDeps } from './client-deps.ts';
import { addClientChildren } from './client-children.ts';
import { clientView, type SecretExposure } from './client-view.ts';
import { carriesSecret, revealClientSecrets } from './reveal-client-secrets.ts';

/**
 * One client as a response body: the view, its children under `expand=all`, then `fields`
 * (spec §4.1), then the secret opened if it survived `fields`.
 */
export async function presentClient(deps: Pick<ClientDeps, 'readPartition' | 'secretBox'>, record: ClientRecord, params: RecordParams, exposure: SecretExposure): Promise<Record<string, unknown>> {
  let view = clientView(record, exposure);
  if (wantsChildren(clientsCollection, params)) view = (await addClientChildren(deps, [view]))[0] ?? view;
  const shaped = shapeItem(clientsCollection, view, params);
  await revealClientSecrets([shaped], deps.secretBox);
  return shaped;
}

/** JSON response; `Cache-Control: no-store` whenever a secret is in it (API.md §2, RFC 6749 §5.1). */
export function clientResponse(status: number, body: Record<string, unknown>, items: readonly Record<string, unknown>[] = [body]): HttpResponse {
  return jsonResponse(status, body, carriesSecret(items) ? NO_STORE : {});
}
