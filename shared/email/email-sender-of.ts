import { SESv2Client } from '@aws-sdk/client-sesv2';
import { type DependencyBudget, sdkClientOptions } from '../aws/dependency-budget.ts';
import type { Runtime } from '../runtime.ts';
import type { EmailSender } from './email-sender.ts';
import { outboxEmailSender } from './outbox-email-sender.ts';
import { sesEmailSender } from './ses-email-sender.ts';

/**
 * SES's time budget (shared/aws/dependency-budget.ts): at most about 4 s (2 × (0.5 + 1.5) s), so a
 * stalled SES is a 503 inside the 6 s of the function that sends (shared/routes/function-groups.ts), after its
 * DynamoDB writes.
 */
export const SES_BUDGET: DependencyBudget = { connectTimeoutMs: 500, attemptTimeoutMs: 1500, maxAttempts: 2 };

const perRuntime = new WeakMap<Runtime, EmailSender | null>();

/**
 * The stage's email sender, built once per runtime from its config (shared/config.ts `email`):
 * the outbox locally, SES in AWS (SES_BUDGET), or undefined
 * when the stage sends no email.
 */
export function emailSenderOf(runtime: Runtime): EmailSender | undefined {
  let sender = perRuntime.get(runtime);
  if (sender === undefined) {
    const email = runtime.config.email;
    sender =
      email === undefined
        ? null
        : email.transport === 'outbox'
          ? outboxEmailSender(email.dir, runtime.now)
          : sesEmailSender(
              // X-Ray subsegments per call where the function is traced (shared/observability/tracing.ts).
              runtime.tracing.captureClient(new SESv2Client({ region: runtime.config.region, ...sdkClientOptions(SES_BUDGET) })),
              { from: email.from, identityArn: email.identityArn },
            );
    perRuntime.set(runtime, sender);
  }
  return sender ?? undefined;
}
