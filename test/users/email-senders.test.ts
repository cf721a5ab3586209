import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '#shared/config.ts';
import { outboxEmailSender } from '#shared/email/outbox-email-sender.ts';
import { sesEmailSender } from '#shared/email/ses-email-sender.ts';
import { isAppError } from '#shared/errors.ts';
import { readOutbox } from '../support/service/outbox.ts';

const MESSAGE = { to: 'ada@example.com', subject: 'Verify', text: 'Open https://x/tickets/t', html: '<p>Open</p>' };

describe('SES v2 sender (docs/contract.md §7.2)', () => {
  const ses = mockClient(SESv2Client);
  afterEach(() => ses.reset());

  it('sends one SendEmail with the configured sender, the identity ARN and simple UTF-8 content', async () => {
    ses.on(SendEmailCommand).resolves({ MessageId: 'm-1' });
    const arn = 'arn:aws:ses:eu-west-1:123456789012:identity/example.com';
    await sesEmailSender(new SESv2Client({ region: 'eu-west-1' }), { from: 'no-reply@example.com', identityArn: arn }).send(MESSAGE);
    const calls = ses.commandCalls(SendEmailCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.args[0].input).toEqual({
      FromEmailAddress: 'no-reply@example.com',
      FromEmailAddressIdentityArn: arn,
      Destination: { ToAddresses: ['ada@example.com'] },
      Content: {
        Simple: {
          Subject: { Data: 'Verify', Charset: 'UTF-8' },
          Body: { Text: { Data: MESSAGE.text, Charset: 'UTF-8' }, Html: { Data: MESSAGE.html, Charset: 'UTF-8' } },
        },
      },
    });
  });

  it('leaves FromEmailAddressIdentityArn out when the stage names no identity', async () => {
    ses.on(SendEmailCommand).resolves({});
    await sesEmailSender(new SESv2Client({ region: 'eu-west-1' }), { from: 'no-reply@example.com' }).send(MESSAGE);
    expect(ses.commandCalls(SendEmailCommand)[0]!.args[0].input).not.toHaveProperty('FromEmailAddressIdentityArn');
  });

  it('SES throttling or a paused account is a 503 naming ses; a refused message is a 503 naming the refusal, never a 500', async () => {
    const sender = sesEmailSender(new SESv2Client({ region: 'eu-west-1' }), { from: 'no-reply@example.com' });
    ses.on(SendEmailCommand).rejects(Object.assign(new Error('slow down'), { name: 'TooManyRequestsException' }));
    const err = await sender.send(MESSAGE).catch((e: unknown) => e);
    expect(isAppError(err) && err.status).toBe(503);
    expect(isAppError(err) && err.detail).toEqual({ dependency: 'ses' });
    ses.reset();
    ses
      .on(SendEmailCommand)
      .rejects(Object.assign(new Error('Email address is not verified: ada@example.com'), { name: 'MessageRejected' }));
    const rejected = await sender.send(MESSAGE).catch((e: unknown) => e);
    expect(isAppError(rejected) && rejected.status).toBe(503);
    expect(isAppError(rejected) && rejected.detail).toEqual({ dependency: 'ses', refused: 'MessageRejected' });
    // SES names the addresses in its message; the cause that reaches the log does not.
    expect(isAppError(rejected) && (rejected.cause as Error).message).toBe('MessageRejected');
    // Anything else (a bug of ours, a bad request we built) stays an error.
    ses.reset();
    ses.on(SendEmailCommand).rejects(Object.assign(new Error('bad'), { name: 'BadRequestException' }));
    const other = await sender.send(MESSAGE).catch((e: unknown) => e);
    expect(isAppError(other)).toBe(false);
  });
});

describe('local outbox sender (docs/contract.md §7.2)', () => {
  it('writes one JSON file {to, subject, text, html} per message, names sorted in sending order', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'outbox-')), 'outbox');
    const frozen = new Date('2026-11-24T22:00:00.000Z');
    const sender = outboxEmailSender(dir, () => frozen); // one millisecond for all: the counter keeps the order
    for (let i = 0; i < 12; i++) await sender.send({ ...MESSAGE, subject: `n${i}` });
    const messages = await readOutbox(dir);
    expect(messages.map((m) => m.subject)).toEqual(Array.from({ length: 12 }, (_, i) => `n${i}`));
    const first = JSON.parse(readFileSync(join(dir, messages[0]!.file), 'utf8'));
    expect(first).toEqual({ ...MESSAGE, subject: 'n0' });
    expect(messages[0]!.file).toMatch(/^20261124T220000000Z-0000-[0-9a-f]{12}\.json$/);
    // Atomic: no temporary file is left behind, and the files are the user's own.
    expect(readdirSync(dir).filter((n) => n.startsWith('.'))).toEqual([]);
    expect(statSync(join(dir, messages[0]!.file)).mode & 0o777).toBe(0o600);
  });

  it('parallel sends each get their own file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'outbox-'));
    const sender = outboxEmailSender(dir);
    await Promise.all(Array.from({ length: 20 }, (_, i) => sender.send({ ...MESSAGE, to: `u${i}@example.com` })));
    const messages = await readOutbox(dir);
    expect(new Set(messages.map((m) => m.to)).size).toBe(20);
  });
});

describe('email configuration (shared/config.ts)', () => {
  const base = { TABLE_NAME: 't', ISSUER: 'https://id.example.com', KEY_MODE: 'local', LOCAL_MASTER_KEY_FILE: '/tmp/k' };

  it('OUTBOX_DIR picks the outbox, EMAIL_FROM picks SES, neither means no email', () => {
    expect(loadConfig({ ...base, OUTBOX_DIR: '/data/outbox', EMAIL_FROM: 'a@example.com' }).email).toEqual({
      transport: 'outbox',
      dir: '/data/outbox',
    });
    expect(loadConfig({ ...base, EMAIL_FROM: 'a@example.com' }).email).toEqual({
      transport: 'ses',
      from: 'a@example.com',
      identityArn: undefined,
    });
    expect(loadConfig(base).email).toBeUndefined();
  });

  it('a sender that is not an address, or an identity that is not an SES ARN, fails with the setting named', () => {
    expect(() => loadConfig({ ...base, EMAIL_FROM: 'not an address' })).toThrow(/EMAIL_FROM/);
    expect(() => loadConfig({ ...base, EMAIL_FROM: 'a@example.com', EMAIL_IDENTITY_ARN: 'arn:aws:kms:x' })).toThrow(/EMAIL_IDENTITY_ARN/);
  });
});
