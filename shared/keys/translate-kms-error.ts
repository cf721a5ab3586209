import { isDependencyUnavailable } from '../aws/dependency-failure.ts';
import { internalError, serviceUnavailable } from '../errors.ts';

/** KMS errors that mean "busy or briefly unavailable" after the SDK's own retries. */
const UNAVAILABLE = new Set([
  'ThrottlingException',
  'LimitExceededException',
  'KMSInternalException',
  'DependencyTimeoutException',
  'KeyUnavailableException',
  'TimeoutError',
]);

/**
 * Translates a KMS failure at the adapter boundary (docs/design.md §3.4, §3.8): throttling or an
 * unreachable KMS is a 503 (fail closed, never a success); anything else (access denied, disabled
 * key, a ciphertext that does not open) is a misconfiguration and stays a 500. Only the operation
 * name and the AWS error name go to the logs, never inputs or outputs.
 */
export function translateKmsError(err: unknown, operation: string): never {
  const e = err as { name?: string; code?: string };
  const detail = { dependency: 'kms', kms: operation, error: e?.name };
  if ((e?.name && UNAVAILABLE.has(e.name)) || isDependencyUnavailable(err)) throw serviceUnavailable({ cause: err, detail });
  throw internalError({ cause: err, detail });
}
