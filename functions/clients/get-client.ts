import { record } from '#shared/http/response-spec.ts';
import { ClientPath } from '#shared/management/clients/client-body-schemas.ts';
import { clientEntity } from '#shared/management/clients/client-entity.ts';
import { clientRecordQuery } from '#shared/management/clients/client-request.ts';
import { getClient } from '#shared/management/clients/get-client.ts';
import { recordResponse } from '#shared/management/kit/present-record.ts';
import { clientDeps } from '#shared/wiring/clients.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';

/** GET /identity/v1/clients/{client_id} (spec §4.3). */
export const handler = managementHandler(
  { path: ClientPath, query: clientRecordQuery, responses: { 200: record(clientEntity) } },
  async (req) => recordResponse(clientEntity, 200, await getClient(clientDeps(req.runtime), req.access, req.path.client_id, req.query)),
);
