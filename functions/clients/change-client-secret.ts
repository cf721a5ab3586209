import { ClientPath } from '../../shared/management/clients/client-body-schemas.ts';
import { changeClientSecret } from '../../shared/management/clients/change-client-secret.ts';
import { clientDeps } from '../../shared/management/clients/client-deps.ts';
import { clientRecordQuery } from '../../shared/management/clients/client-request.ts';
import { clientResponse } from '../../shared/management/clients/present-client.ts';
import { managementHandler } from '../../shared/management/management-handler.ts';

/** POST /identity/v1/clients/{client_id}/secret (spec §4.3): 200 with the Client and its new secret (no-store). */
export const handler = managementHandler({ path: ClientPath, query: clientRecordQuery }, async (req) =>
  clientResponse(200, await changeClientSecret(clientDeps(req.runtime), req.ctx, req.path.client_id, req.query)),
);
