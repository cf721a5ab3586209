import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { isDependencyUnavailable } from '#shared/aws/dependency-failure.ts';
import { toAppError } from '#shared/http/render-error.ts';
import { runWithRuntime } from '#shared/runtime.ts';
import { translateError } from '#shared/store/core/translate-error.ts';
import { httpHandler } from '#shared/wiring/http-handler.ts';
import { createTestTable } from '../support/service/dynamodb.ts';
import { lambdaContext, restEvent } from '../support/service/events.ts';
import { testRuntime } from '../support/service/test-runtime.ts';

/** What the SDK throws when an attempt outlives DYNAMODB_ATTEMPT_TIMEOUT_MS (throwOnRequestTimeout). */
const sdkTimeout = () => Object.assign(new Error('Request timed out after 500 ms'), { name: 'TimeoutError', $metadata: {} });

describe('a timed-out or unreachable dependency is a 503 with Retry-After, never a 500 (docs/operations.md)', () => {
  it('an SDK timeout, a refused connection and an AWS 5XX are "unavailable"; a validation error is not', () => {
    expect(isDependencyUnavailable(sdkTimeout())).toBe(true);
    expect(isDependencyUnavailable(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(
      isDependencyUnavailable(Object.assign(new Error('x'), { name: 'InternalServerError', $metadata: { httpStatusCode: 500 } })),
    ).toBe(true);
    expect(
      isDependencyUnavailable(Object.assign(new Error('x'), { name: 'ValidationException', $metadata: { httpStatusCode: 400 } })),
    ).toBe(false);
  });

  it('at the repository boundary an SDK timeout becomes 503 service_unavailable naming DynamoDB for the logs', () => {
    let thrown: unknown;
    try {
      translateError(sdkTimeout());
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toMatchObject({
      status: 503,
      code: 'service_unavailable',
      headers: { 'Retry-After': '1' },
      detail: { dependency: 'dynamodb' },
    });
  });

  it('an untranslated SDK timeout reaching the renderer is a 503 too, not internal_error', () => {
    expect(toAppError(sdkTimeout())).toMatchObject({ status: 503, code: 'service_unavailable', headers: { 'Retry-After': '1' } });
  });

  it('a handler still running just before its function timeout answers 503 with Retry-After (middy early timeout), not 500', async () => {
    const runtime = testRuntime(await createTestTable('timeouts'));
    const hang = httpHandler({ oauth: true }, () => new Promise(() => {}));
    const dying: Context = { ...lambdaContext, getRemainingTimeInMillis: () => 700 };
    const started = performance.now();
    const res = await runWithRuntime(runtime, () => hang(restEvent({ method: 'POST', resource: '/token', body: '' }), dying));
    expect(performance.now() - started).toBeLessThan(5000);
    expect(res.statusCode).toBe(503);
    expect(res.headers['Retry-After']).toBe('1');
    expect(res.headers['Cache-Control']).toBe('no-store');
    // The client is told to retry, not "Internal error." (the 503's own fixed message).
    expect(JSON.parse(res.body)).toEqual({
      code: 'service_unavailable',
      message: 'A dependency is unavailable; retry later.',
      error: 'service_unavailable',
      error_description: 'A dependency is unavailable; retry later.',
    });
  });
});
