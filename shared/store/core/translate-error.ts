import { isDependencyUnavailable } from '../../aws/dependency-failure.ts';
import { type AppError, conflict, serviceUnavailable } from '../../errors.ts';

const THROTTLED = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'LimitExceededException',
]);

/** Names the condition that failed, for the domain error the caller wants instead of a raw conflict. */
export type OnConditionFailed = (reasons: readonly (string | undefined)[]) => AppError;

/**
 * Translates AWS errors at the repository boundary (docs/design.md §3.4): a failed condition becomes a
 * domain error (409 by default), throttling, a timeout or an unreachable DynamoDB after the SDK's
 * retries (shared/aws/dependency-budget.ts) becomes 503. Anything else is a bug and stays a 500.
 */
export function translateError(err: unknown, onConditionFailed?: OnConditionFailed): never {
  const e = err as { name?: string; CancellationReasons?: { Code?: string }[]; code?: string };
  if (e?.name === 'ConditionalCheckFailedException') {
    throw onConditionFailed
      ? withCause(onConditionFailed(['ConditionalCheckFailed']), err)
      : conflict('The record was changed concurrently or already exists.', { cause: err });
  }
  if (e?.name === 'TransactionCanceledException') {
    const reasons = (e.CancellationReasons ?? []).map((r) => r.Code);
    if (reasons.some((r) => r === 'ConditionalCheckFailed')) {
      throw onConditionFailed
        ? withCause(onConditionFailed(reasons), err)
        : conflict('The record was changed concurrently or already exists.', { cause: err });
    }
    // Throttled after the SDK's retries: the dependency is unavailable (503), as everywhere else.
    if (reasons.some((r) => r === 'ThrottlingError' || r === 'ProvisionedThroughputExceeded'))
      throw serviceUnavailable({ cause: err, detail: { dependency: 'dynamodb' } });
    if (reasons.some((r) => r === 'TransactionConflict')) {
      throw conflict('A concurrent change was in progress; retry.', { cause: err });
    }
  }
  if (e?.name === 'TransactionConflictException') throw conflict('A concurrent change was in progress; retry.', { cause: err });
  if ((e?.name && THROTTLED.has(e.name)) || isDependencyUnavailable(err))
    throw serviceUnavailable({ cause: err, detail: { dependency: 'dynamodb' } });
  throw err;
}

function withCause(appError: AppError, cause: unknown): AppError {
  if (appError.cause === undefined) Object.defineProperty(appError, 'cause', { value: cause });
  return appError;
}
