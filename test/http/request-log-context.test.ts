import { describe, expect, it, vi } from 'vitest';

// INFO, as deployed (the suite runs at WARN): set before any module loads the logger.
vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
});

const { httpHandler } = await import('#shared/wiring/http-handler.ts');
const { jsonResponse, NO_STORE } = await import('#shared/http/response.ts');
const { badRequest } = await import('#shared/errors.ts');
const { runWithRuntime } = await import('#shared/runtime.ts');
const { captureLogLines } = await import('../support/service/capture-stdout.ts');
const { createTestTable } = await import('../support/service/dynamodb.ts');
const { lambdaContext, restEvent } = await import('../support/service/events.ts');
const { testRuntime } = await import('../support/service/test-runtime.ts');

describe('request log lines carry their own invocation (the Lambda context middleware)', () => {
  it("a failure's line names the function and its own request id; a quiet success writes nothing at INFO", async () => {
    const runtime = testRuntime(await createTestTable('request-log'));
    const handler = httpHandler({ oauth: true, quietSuccess: true }, async (req) => {
      if (req.rawBody === 'fail') throw badRequest('body: no');
      return jsonResponse(200, { ok: true }, NO_STORE);
    });
    const call = (requestId: string, body: string) =>
      runWithRuntime(runtime, () =>
        handler(restEvent({ method: 'POST', resource: '/token', body, headers: { 'Content-Type': 'text/plain' } }), {
          ...lambdaContext,
          awsRequestId: requestId,
        }),
      );
    const { lines } = await captureLogLines(async () => {
      expect((await call('req-1', 'fail')).statusCode).toBe(400);
      expect((await call('req-2', 'ok')).statusCode).toBe(200);
      expect((await call('req-3', 'fail')).statusCode).toBe(400);
    });
    const requests = lines.filter((l) => l.message === 'request');
    expect(requests.map((l) => [l.level, l.status, l.function_request_id, l.function_name])).toEqual([
      ['INFO', 400, 'req-1', lambdaContext.functionName],
      ['INFO', 400, 'req-3', lambdaContext.functionName],
    ]);
  });
});
