import { type SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { isDependencyUnavailable } from '../aws/dependency-failure.ts';
import { serviceUnavailable } from '../errors.ts';
import type { EmailSender } from './email-sender.ts';

export interface SesSenderOptions {
  /** The verified sender address (the stage config's `email.from`). */
  readonly from: string;
  /**
   * The SES identity that authorizes `from` (the stage config's `email.identityArn`), when the
   * function's policy is scoped to it or the identity is in another account (sending authorization).
   */
  readonly identityArn?: string | undefined;
}

/** SES errors that mean "try again later", not a bug (SESv2 API reference, SendEmail "Errors"). */
const TRANSIENT = new Set(['TooManyRequestsException', 'LimitExceededException', 'SendingPausedException', 'ThrottlingException']);

/**
 * Amazon SES v2 `SendEmail` with simple content (API.md §7.2). The message's body never reaches a
 * log: an error keeps only the SDK's error name and message.
 */
export function sesEmailSender(client: SESv2Client, options: SesSenderOptions): EmailSender {
  return {
    async send({ to, subject, text, html }) {
      try {
        await client.send(
          new SendEmailCommand({
            FromEmailAddress: options.from,
            ...(options.identityArn ? { FromEmailAddressIdentityArn: options.identityArn } : {}),
            Destination: { ToAddresses: [to] },
            Content: {
              Simple: {
                Subject: { Data: subject, Charset: 'UTF-8' },
                Body: { Text: { Data: text, Charset: 'UTF-8' }, Html: { Data: html, Charset: 'UTF-8' } },
              },
            },
          }),
        );
      } catch (err) {
        const name = (err as { name?: string }).name ?? '';
        if (TRANSIENT.has(name) || isDependencyUnavailable(err)) {
          throw serviceUnavailable({ cause: err, detail: { dependency: 'ses' } });
        }
        throw err;
      }
    },
  };
}
