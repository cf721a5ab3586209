import { ticketsRepository } from '#shared/store/sessions/tickets-repository.ts';
import { usersRepository } from '#shared/store/users/users-repository.ts';
import { startTestService, type TestService } from '../service/local-service.ts';
import { managementCaller } from '../service/management-api.ts';
import { readOutbox } from '../service/outbox.ts';

export const SIGNUP_PASSWORD = 'correct horse battery staple 7';

export interface SignupService {
  svc: TestService;
  /** A public client of the default tenant (registers with `client_id` alone). */
  publicClientId: string;
  /** POST /identity/v1/users/register as JSON; `client_id` and `password` default to the public client's and SIGNUP_PASSWORD. */
  register(body: Record<string, unknown>, headers?: Record<string, string>): Promise<{ status: number; body: Record<string, any> }>;
  /** The verification link of the (first) mail to `to` in the local outbox. */
  linkFor(to: string): Promise<string>;
  outbox(): ReturnType<typeof readOutbox>;
  users(): ReturnType<typeof usersRepository>;
  tickets(): ReturnType<typeof ticketsRepository>;
}

/** The local service with a public client, and the helpers of the sign-up tests (docs/users.md "Registration and email"). */
export async function startSignupService(): Promise<SignupService> {
  const svc = await startTestService();
  const call = managementCaller(svc.url, await svc.managementToken());
  const created = await call('POST', '/clients', { body: { client_name: 'signup spa', is_public: true } });
  if (created.status !== 201) throw new Error(`public client: ${created.status}`);
  const { runtime } = svc.stack;
  const email = runtime.config.email;
  const dir = email?.transport === 'outbox' ? email.dir : '';
  const outbox = () => readOutbox(dir);
  return {
    svc,
    publicClientId: created.body.id,
    async register(body, headers = {}) {
      const res = await fetch(`${svc.url}/identity/v1/users/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ client_id: created.body.id, password: SIGNUP_PASSWORD, ...body }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, any> };
    },
    async linkFor(to) {
      const mail = (await outbox()).find((m) => m.to === to);
      const link = mail && /(http:\/\/\S+\/tickets\/[A-Za-z0-9_-]{43})/.exec(mail.text)?.[1];
      if (!link) throw new Error(`no verification mail to ${to}`);
      return link;
    },
    outbox,
    users: () => usersRepository(runtime.db, runtime.config.tableName, runtime.now),
    tickets: () => ticketsRepository(runtime.db, runtime.config.tableName, runtime.now),
  };
}

/** The hidden CSRF token of a hosted page's form. */
export const csrfOf = (html: string): string => {
  const token = /name="csrf_token" value="([^"]+)"/.exec(html)?.[1];
  if (!token) throw new Error('no csrf_token in the page');
  return token;
};
