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
 * SES refusing the message or the sender (SESv2 API reference, SendEmail "Errors"): an unverified
 * sender, a sandbox account and a recipient it has not verified, a suspended account. A client's
 * request can reach them (any address it registers with, in the sandbox), so they must not be a
 * 500; they are the email dependency being unavailable to us, logged with their SES name for the
 * operator (docs/operations.md).
 */
const REFUSED = new Set(['MessageRejected', 'MailFromDomainNotVerifiedException', 'AccountSuspendedException', 'NotFoundException']);

/**
 * Amazon SES v2 `SendEmail` with simple content (docs/contract.md §7.2). The message's body never reaches a
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
        // SES's message names the refused addresses: the log keeps the error name only.
        if (REFUSED.has(name)) throw serviceUnavailable({ cause: new Error(name), detail: { dependency: 'ses', refused: name } });
        throw err;
      }
    },
  };
}
