import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import * as v from 'valibot';
import { type CustomResourceEvent, isCustomResourceEvent, sendCustomResourceResponse } from '#shared/bootstrap/cloudformation-response.ts';
import { type BootstrapOutput, runBootstrap } from '#shared/bootstrap/run-bootstrap.ts';
import { isAppError } from '#shared/errors.ts';
import { logger } from '#shared/logger.ts';
import { observeInvocation } from '#shared/observability/observe-invocation.ts';
import { getRuntime } from '#shared/runtime.ts';

/**
 * What `npm run bootstrap -- --stage <name> [--rotate-default-secret]` sends (infra/bootstrap-stage.ts):
 * `{}` (or no payload) runs the bootstrap; `printCredentials` also returns the Default Client's
 * secret the first time; `rotateDefaultSecret` (only with `printCredentials`, so that a new secret
 * is never made without being returned) replaces it and returns the new one. Anything else, an
 * unknown field included, is refused: a misspelt flag must not quietly run a plain bootstrap.
 */
export const BootstrapRequestSchema = v.nullish(
  v.pipe(
    v.strictObject({
      printCredentials: v.optional(v.boolean()),
      rotateDefaultSecret: v.optional(v.boolean()),
    }),
    v.check(
      (r) => r.rotateDefaultSecret !== true || r.printCredentials === true,
      'rotateDefaultSecret requires printCredentials: true (a new secret that is not returned would lock everyone out)',
    ),
  ),
  {},
);
export type BootstrapRequest = v.InferOutput<typeof BootstrapRequestSchema>;

/** The answer to an event that is neither a custom resource request nor a valid `BootstrapRequest`; nothing ran. */
export interface BootstrapRequestError {
  error: 'invalid_request';
  message: string;
}

/** Same id for every response about the one bootstrap resource; a change would make CloudFormation "replace" it. */
export const PHYSICAL_RESOURCE_ID = 'identity-service-bootstrap';

const ATTEMPTS = 3;
const RETRY_DELAY_MS = 5_000;
/** Left for sending a FAILED response before Lambda stops the function. */
const RESPONSE_RESERVE_MS = 10_000;

/**
 * The stage bootstrap (docs/contract.md §4, docs/deploy.md): not an HTTP route, invoked directly.
 *
 * - By CloudFormation (a custom resource, infra/constructs/stage-bootstrap.ts) on deploys: runs
 *   the bootstrap and answers the stack with the Default Client's id only. Its secret is never in
 *   that answer, since CloudFormation shows responses in the console and stack events; it stays
 *   sealed in the client record for the one-off command.
 *   A custom resource request is never read for `printCredentials` or `rotateDefaultSecret`.
 * - By `npm run bootstrap` with `{"printCredentials": true}`: runs the same and returns the secret
 *   if it has never been shown; later calls return `created: false` and no secret.
 * - By `npm run bootstrap -- --rotate-default-secret` with `{"printCredentials": true,
 *   "rotateDefaultSecret": true}`: runs the same, then gives the Default Client a new secret and
 *   returns it (the recovery path for a lost secret; gated by who may invoke this function).
 * - Anything else: `{error: 'invalid_request', message}`, and nothing runs.
 *
 * The secret is never logged.
 */
async function bootstrapStage(event: unknown, context: Context): Promise<BootstrapOutput | BootstrapRequestError | undefined> {
  logger.addContext(context);
  if (isCustomResourceEvent(event)) {
    await onCustomResource(event, context);
    return undefined;
  }
  const parsed = v.safeParse(BootstrapRequestSchema, event);
  if (!parsed.success) {
    const message = `Invalid bootstrap request: ${parsed.issues.map(describeIssue).join('; ')}. Expected {"printCredentials"?: boolean, "rotateDefaultSecret"?: boolean}.`;
    // Where the event is wrong, not what it holds (the answer, to the caller only, echoes short values).
    logger.warn('bootstrap request refused', { invalid: parsed.issues.map((i) => v.getDotPath(i) ?? '(event)') });
    return { error: 'invalid_request', message };
  }
  const printCredentials = parsed.output.printCredentials === true;
  const rotateDefaultSecret = parsed.output.rotateDefaultSecret === true;
  try {
    const out = await runBootstrap(getRuntime(), { printCredentials, rotateDefaultSecret });
    logOutcome('bootstrap done (direct invocation)', out);
    return out;
  } catch (err) {
    logger.error('bootstrap failed', { error: err as Error, detail: isAppError(err) ? err.detail : undefined });
    throw err;
  }
}

/** With its X-Ray subsegment and the cold-start metric (shared/observability/observe-invocation.ts). */
export const handler = middy(bootstrapStage, { timeoutEarlyInMillis: 0 }).use(observeInvocation());

async function onCustomResource(event: CustomResourceEvent, context: Context): Promise<void> {
  const physicalResourceId = event.RequestType === 'Create' ? PHYSICAL_RESOURCE_ID : event.PhysicalResourceId;
  if (event.RequestType === 'Delete') {
    // The records live and die with the table, whose removal policy decides; nothing to undo.
    await sendCustomResourceResponse(event, { status: 'SUCCESS', physicalResourceId });
    return;
  }
  try {
    const deadline = Date.now() + context.getRemainingTimeInMillis() - RESPONSE_RESERVE_MS;
    const out = await withRetries(() => runBootstrap(getRuntime(), { printCredentials: false, rotateDefaultSecret: false }), deadline);
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
  // Whether a secret went out (and whether it is a new one), never the secret.
  logger.info(message, {
    created: out.created,
    clientId: out.clientId,
    secretReturned: out.clientSecret !== undefined,
    secretRotated: out.rotated === true,
    signingKeys: out.signingKeys,
  });
}

/** One valibot issue as `event.<field>: <what is wrong>`; received values are cut short. */
function describeIssue(issue: v.BaseIssue<unknown>): string {
  const path = v.getDotPath(issue);
  const where = path ? `event.${path}` : 'event';
  const received = issue.received.length > 40 ? `${issue.received.slice(0, 40)}...` : issue.received;
  if (issue.type === 'strict_object' && issue.expected === 'never') return `${where}: unknown field`;
  if (issue.type === 'check') return `event: ${issue.message}`;
  return `${where}: expected ${issue.expected ?? 'something else'}, received ${received}`;
}
