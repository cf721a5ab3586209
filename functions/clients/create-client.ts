import { CreateClientBody } from '../../shared/management/clients/client-body-schemas.ts';
import { clientDeps } from '../../shared/management/clients/client-deps.ts';
import { clientRecordQuery } from '../../shared/management/clients/client-request.ts';
import { createClient } from '../../shared/management/clients/create-client.ts';
import { clientResponse } from '../../shared/management/clients/present-client.ts';
import { managementHandler } from '../../shared/management/management-handler.ts';

/** POST /identity/v1/clients (spec §4.3): 201 with the Client and its new secret (no-store). */
export const handler = managementHandler({ body: CreateClientBody, query: clientRecordQuery }, async (req) =>
  clientResponse(201, await createClient(clientDeps(req.runtime), req.ctx, req.body, req.query)),
);
