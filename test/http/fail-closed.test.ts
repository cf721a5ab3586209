import { describe, expect, it } from 'vitest';
import { runWithRuntime } from '#shared/runtime.ts';
import { createDocumentClient } from '#shared/store/core/dynamodb-client.ts';
import { handler as token } from '../../functions/oauth/token.ts';
import { handler as tokeninfo } from '../../functions/oauth/tokeninfo.ts';
import { TEST_BUDGET } from '../support/service/dynamodb.ts';
import { lambdaContext, restEvent } from '../support/service/events.ts';
import { testRuntime } from '../support/service/test-runtime.ts';

/** docs/design.md §3.8 (fosite CVE-2020-15223): a storage failure while checking is a 503, never a success. */
describe('fail closed when DynamoDB cannot be reached', () => {
  // Nothing listens on port 9: every call fails with ECONNREFUSED after the SDK's retries.
  const dead = {
    endpoint: 'http://127.0.0.1:9',
    tableName: 'unreachable',
    db: createDocumentClient({ region: 'local', endpoint: 'http://127.0.0.1:9', budget: TEST_BUDGET }),
  };
  const runtime = testRuntime(dead);
  const basic = `Basic ${Buffer.from('00000000-0000-7000-8000-000000000001:secret').toString('base64')}`;

  for (const [name, fn, resource, body] of [
    ['/tokeninfo', tokeninfo, '/tokeninfo', 'token=a.b.c'],
    ['/token', token, '/token', 'grant_type=client_credentials&audience=x'],
  ] as const) {
    it(`${name} answers 503 service_unavailable with Retry-After, not 200 and not 500`, async () => {
      const res = await runWithRuntime(runtime, () =>
        fn(
          restEvent({
            method: 'POST',
            resource,
            headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: basic },
            body,
          }),
          lambdaContext,
        ),
      );
      expect(res.statusCode).toBe(503);
      expect(res.headers['Retry-After']).toBe('1');
      expect(JSON.parse(res.body)).toMatchObject({ code: 'service_unavailable', error: 'service_unavailable' });
    });
  }
});
