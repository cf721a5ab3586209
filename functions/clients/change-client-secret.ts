import { record } from '#shared/http/response-spec.ts';
import { changeClientSecret } from '#shared/management/clients/change-client-secret.ts';
import { ClientPath } from '#shared/management/clients/client-body-schemas.ts';
import { clientEntity } from '#shared/management/clients/client-entity.ts';
import { clientRecordQuery } from '#shared/management/clients/client-request.ts';
import { recordResponse } from '#shared/management/kit/present-record.ts';
import { clientDeps } from '#shared/wiring/clients.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';

/** POST /identity/v1/clients/{client_id}/secret (spec §4.3): 200 with the Client and its new secret (no-store). */
export const handler = managementHandler(
  { path: ClientPath, query: clientRecordQuery, responses: { 200: record(clientEntity) } },
  async (req) =>
    recordResponse(clientEntity, 200, await changeClientSecret(clientDeps(req.runtime), req.access, req.path.client_id, req.query)),
);
