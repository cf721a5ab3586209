import { record } from '#shared/http/response-spec.ts';
import { ClientPath, UpdateClientBody } from '#shared/management/clients/client-body-schemas.ts';
import { clientEntity } from '#shared/management/clients/client-entity.ts';
import { clientRecordQuery } from '#shared/management/clients/client-request.ts';
import { updateClient } from '#shared/management/clients/update-client.ts';
import { recordResponse } from '#shared/management/kit/present-record.ts';
import { clientDeps } from '#shared/wiring/clients.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';

/** PATCH and PUT /identity/v1/clients/{client_id} (spec §4.3; docs/contract.md §6: PUT is a synonym, both merge). */
export const handler = managementHandler(
  { path: ClientPath, body: UpdateClientBody, query: clientRecordQuery, responses: { 200: record(clientEntity) } },
  async (req) =>
    recordResponse(clientEntity, 200, await updateClient(clientDeps(req.runtime), req.access, req.path.client_id, req.body, req.query)),
);
