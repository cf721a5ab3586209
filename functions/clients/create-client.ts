import { record } from '#shared/http/response-spec.ts';
import { CreateClientBody } from '#shared/management/clients/client-body-schemas.ts';
import { clientEntity } from '#shared/management/clients/client-entity.ts';
import { clientRecordQuery } from '#shared/management/clients/client-request.ts';
import { createClient } from '#shared/management/clients/create-client.ts';
import { recordResponse } from '#shared/management/kit/present-record.ts';
import { clientDeps } from '#shared/wiring/clients.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';

/** POST /identity/v1/clients (spec §4.3): 201 with the Client and its new secret (no-store). */
export const handler = managementHandler(
  { body: CreateClientBody, query: clientRecordQuery, responses: { 201: record(clientEntity) } },
  async (req) => recordResponse(clientEntity, 201, await createClient(clientDeps(req.runtime), req.access, req.body, req.query)),
);
