/**
 * One email message (docs/contract.md §7.2): the local outbox stores exactly these four fields per message.
 * `html` is a whole document already escaped by its maker (shared/html/html.ts).
 */
export interface EmailMessage {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

/**
 * The one way the service sends email (docs/contract.md §7.2): Amazon SES v2 in AWS
 * (ses-email-sender.ts), a JSON file per message in `<DATA_DIR>/outbox/` locally
 * (outbox-email-sender.ts). Chosen once at the composition root (email-sender-of.ts). A failure
 * to hand the message over throws (503 when the dependency is unavailable); nothing is retried
 * later, so a caller sends only once the state the message describes is stored.
 */
export interface EmailSender {
  send(message: EmailMessage): Promise<void>;
}
