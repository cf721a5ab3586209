import middy from '@middy/core';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { type RotationResult, rotateKeys } from '#shared/keys/rotate-keys.ts';
import { logger } from '#shared/logger.ts';
import { observeInvocation } from '#shared/observability/observe-invocation.ts';
import { getRuntime } from '#shared/runtime.ts';

/**
 * The scheduled key rotation (EventBridge; docs/design.md §4, docs/keys.md). Not an HTTP endpoint, so
 * no HTTP pipeline. Its first run creates the ES256 and RS256 keys, so the token endpoint never
 * needs kms:GenerateDataKeyPairWithoutPlaintext. A failure throws, so the invocation is marked
 * failed (and retried by EventBridge) and the error alarm sees it.
 */
async function rotate(_event: ScheduledEvent | Record<string, never>, context: Context): Promise<{ results: RotationResult[] }> {
  logger.addContext(context);
  const runtime = getRuntime();
  try {
    const capture = <C>(client: C) => runtime.tracing.captureClient(client);
    const results = await rotateKeys({ config: runtime.config, db: runtime.db, now: runtime.now, capture });
    for (const r of results) logger.info('signing key rotation', { ...r });
    return { results };
  } catch (err) {
    logger.error('signing key rotation failed', { error: err as Error });
    throw err;
  }
}

/** With its X-Ray subsegment and the cold-start metric (shared/observability/observe-invocation.ts). */
export const handler = middy(rotate, { timeoutEarlyInMillis: 0 }).use(observeInvocation());
