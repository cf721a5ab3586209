import type { Config } from '#shared/config.ts';
import { createRuntime, runWithRuntime } from '#shared/runtime.ts';
import { handler as tokenHandler } from '../../../functions/oauth/token.ts';
import { recordingClient, type TestTable } from '../service/dynamodb.ts';
import { lambdaContext, restEvent } from '../service/events.ts';

/**
 * A fresh container (runtime) on `table` whose DynamoDB commands are recorded, and `token`: a
 * grant through the real /token handler, authenticated as `clientId` (`refresh`: the
 * refresh_token grant). `now` stops its clock when given (so its 1 s caches hold however loaded
 * the machine is).
 */
export function refreshContainer(table: TestTable, config: Config, client: { id: string; secret: string }, now?: () => Date) {
  const { db, commands } = recordingClient(table);
  const runtime = createRuntime(config, { db, ...(now ? { now } : {}) });
  const token = async (params: Record<string, string>) => {
    const res = await runWithRuntime(runtime, () => tokenHandler(tokenEvent(client, params), lambdaContext));
    return { status: res.statusCode, body: JSON.parse(res.body) as Record<string, string> };
  };
  const refresh = (refresh_token: string) => token({ grant_type: 'refresh_token', refresh_token });
  return { commands, token, refresh, runtime };
}

/** A `POST /token` event as API Gateway passes it: form `params`, Basic authentication as `client`. */
export const tokenEvent = (client: { id: string; secret: string }, params: Record<string, string>) =>
  restEvent({
    method: 'POST',
    resource: '/token',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`,
    },
    body: new URLSearchParams(params).toString(),
  });
