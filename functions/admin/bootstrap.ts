import type { Context } from 'aws-lambda';
import { isAppError } from '../../shared/errors.ts';
import { logger } from '../../shared/logger.ts';
import { getRuntime } from '../../shared/runtime.ts';
import { isCustomResourceEvent, sendCustomResourceResponse, type CustomResourceEvent } from './cloudformation-response.ts';
import { runBootstrap, type BootstrapOutput } from './run-bootstrap.ts';

/** What `npm run bootstrap -- --stage <name>` sends (infra/bootstrap-stage.ts). */
export interface BootstrapRequest {
  printCredentials?: boolean;
}

/** Same id for every response about the one bootstrap resource; a change would make CloudFormation "replace" it. */
export const PHYSICAL_RESOURCE_ID = 'identity-service-bootstrap';

const ATTEMPTS = 3;
const RETRY_DELAY_MS = 5_000;
/** Left for sending a FAILED response before Lambda stops the function. */
const RESPONSE_RESERVE_MS = 10_000;

/**
 * The stage bootstrap (API.md §4, docs/deploy.md): not an HTTP route, invoked directly.
 *
 * - By CloudFormation (a custom resource, infra/constructs/stage-bootstrap.ts) on deploys: runs
 *   the bootstrap and answers the stack with the Default Client's id only. Its secret is never in
 *   that answer, since CloudFormation shows responses in the console and stack events; it stays
 *   sealed in the client record for the one-off command.
 * - By `npm run bootstrap` with `{"printCredentials": true}`: runs the same and returns the secret
 *   if it has never been shown; later calls return `created: false` and no secret.
 *
 * The secret is never logged.
 */
export async function handler(event: unknown, context: Context): Promise<BootstrapOutput | undefined> {
  logger.addContext(context);
  if (isCustomResourceEvent(event)) {
    await onCustomResource(event, context);
    return undefined;
  }
  const printCredentials = typeof event === 'object' && event !== null && (event as BootstrapRequest).printCredentials === true;
  try {
    const out = await runBootstrap(getRuntime(), { printCredentials });
    logOutcome('bootstrap done (direct invocation)', out);
    return out;
  } catch (err) {
    logger.error('bootstrap failed', { error: err as Error, detail: isAppError(err) ? err.detail : undefined });
    throw err;
  }
}

async function onCustomResource(event: CustomResourceEvent, context: Context): Promise<void> {
  const physicalResourceId = event.RequestType === 'Create' ? PHYSICAL_RESOURCE_ID : event.PhysicalResourceId;
  if (event.RequestType === 'Delete') {
    // The records live and die with the table, whose removal policy decides; nothing to undo.
    await sendCustomResourceResponse(event, { status: 'SUCCESS', physicalResourceId });
    return;
  }
  try {
    const deadline = Date.now() + context.getRemainingTimeInMillis() - RESPONSE_RESERVE_MS;
    const out = await withRetries(() => runBootstrap(getRuntime(), { printCredentials: false }), deadline);
    logOutcome(`bootstrap done (CloudFormation ${event.RequestType})`, out);
    await sendCustomResourceResponse(event, { status: 'SUCCESS', physicalResourceId, data: { DefaultClientId: out.clientId } });
  } catch (err) {
    logger.error('bootstrap failed', { error: err as Error, detail: isAppError(err) ? err.detail : undefined });
    const reason = `Bootstrap failed: ${describeError(err)}. Log: ${context.logGroupName} ${context.logStreamName}`;
    await sendCustomResourceResponse(event, { status: 'FAILED', physicalResourceId, reason });
  }
}

/**
 * A few attempts: on a first deploy the role's policy may still be propagating in IAM when the
 * function first runs. Every step is idempotent, so a retry finishes what a failed attempt began.
 * Gives up before `deadline` so that a FAILED response still reaches CloudFormation.
 */
async function withRetries<T>(run: () => Promise<T>, deadline: number): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await beforeDeadline(run(), deadline);
    } catch (err) {
      const wait = RETRY_DELAY_MS * attempt;
      if (attempt >= ATTEMPTS || Date.now() + wait >= deadline) throw err;
      logger.warn('bootstrap attempt failed; retrying', { attempt, error: err as Error });
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

async function beforeDeadline<T>(work: Promise<T>, deadline: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** For the stack events: names and messages only (none of our errors carries a secret). */
function describeError(err: unknown): string {
  if (isAppError(err)) return `${err.code}${err.detail === undefined ? '' : ` ${JSON.stringify(err.detail)}`}`;
  const e = err as { name?: string; message?: string };
  return `${e?.name ?? 'Error'}: ${e?.message ?? String(err)}`;
}

function logOutcome(message: string, out: BootstrapOutput): void {
  // Whether a secret went out, never the secret.
  logger.info(message, { created: out.created, clientId: out.clientId, secretReturned: out.clientSecret !== undefined, signingKeys: out.signingKeys });
}
