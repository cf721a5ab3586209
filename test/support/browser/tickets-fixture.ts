import { randomUUID } from 'node:crypto';
import { keys } from '#shared/store/core/table-keys.ts';
import { ticketHash } from '#shared/store/sessions/tickets-repository.ts';
import { oauthDeps } from '#shared/wiring/oauth.ts';
import { DEFAULT_TENANT } from '../management/clients-fixture.ts';
import { GOOD_PASSWORD, usersFixture } from '../management/users-fixture.ts';
import { loginClient, storedItem, tokenRequest } from '../oauth/login-grants.ts';
import { managementCaller } from '../service/management-api.ts';

/** One exchange with the ticket page, as a browser without JavaScript makes it. */
export interface PageAnswer {
  status: number;
  location: string | null;
  retryAfter: string | null;
  html: string;
}

/**
 * The Users fixture plus what the ticket tests need (docs/users.md "Tickets"): a helpdesk client
 * holding only `create:tickets` and user scopes, management scopes given to and taken from a user
 * (the promotion of the takeover tests), the page over fetch, and the password and otp grants.
 */
export async function ticketsFixture() {
  const fx = await usersFixture();
  const { runtime } = fx.svc.stack;
  const api = (await oauthDeps(runtime).findResource(DEFAULT_TENANT, runtime.config.managementAudience))!;
  const scopeIds = new Map(Object.entries(api.scope_names).map(([id, name]) => [name, id]));
  const permissions = (names: string[]) => ({ permissions: [{ resource_id: api.id, scopes: names.map((n) => scopeIds.get(n)!) }] });
  const login = await loginClient(fx.svc, ['password', 'otp']);
  const helpdeskClient = await fx.createClient({ client_metadata: { grant_types: ['client_credentials'] } });
  const helpdeskToken = await fx.clientToken(helpdeskClient, 'create:tickets read:users update:users');

  return {
    ...fx,
    /** A client holding `create:tickets read:users update:users` and nothing else. */
    helpdesk: managementCaller(fx.svc.url, helpdeskToken),
    helpdeskClientId: helpdeskClient.id as string,
    /** A plain user (no management scope) with GOOD_PASSWORD and a fresh username. */
    async plainUser(extra: Record<string, unknown> = {}) {
      const user = await fx.createUser({ username: `t-${randomUUID().slice(0, 8)}`, password: GOOD_PASSWORD, ...extra });
      return user as Record<string, any> & { id: string; username: string };
    },
    /** An administrator gives the user these management scopes directly (POST /users/{id}/permissions). */
    async promote(userId: string, names: string[]) {
      const res = await fx.call('POST', `/users/${userId}/permissions`, { body: permissions(names) });
      if (res.status !== 204) throw new Error(`promote: ${res.status} ${JSON.stringify(res.body)}`);
    },
    async demote(userId: string, names: string[]) {
      const res = await fx.call('DELETE', `/users/${userId}/permissions`, { body: permissions(names) });
      if (res.status !== 204) throw new Error(`demote: ${res.status} ${JSON.stringify(res.body)}`);
    },
    /** GET the page, or POST it a form. */
    async page(url: string, form?: Record<string, string>): Promise<PageAnswer> {
      const res = await fetch(url, {
        method: form ? 'POST' : 'GET',
        redirect: 'manual',
        ...(form ? { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) } : {}),
      });
      return {
        status: res.status,
        location: res.headers.get('location'),
        retryAfter: res.headers.get('retry-after'),
        html: await res.text(),
      };
    },
    storedUser: (id: string) => storedItem(fx.svc, keys.user(id)),
    storedOtp: (id: string) => storedItem(fx.svc, keys.userOtp(id)),
    /** The ticket's item as stored, by its URL. */
    storedTicket: (url: string) => storedItem(fx.svc, keys.ticket(ticketHash(url.slice(url.lastIndexOf('/') + 1)))),
    passwordGrant: (username: string, password: string) => tokenRequest(fx.svc, login.auth, 'password', { username, password }),
    otpGrant: (username: string, otp: string) => tokenRequest(fx.svc, login.auth, 'otp', { username, otp }),
  };
}

export type TicketsFixture = Awaited<ReturnType<typeof ticketsFixture>>;

/** A hidden input's value in a page. */
export const hiddenValue = (html: string, name: string): string => {
  const value = new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1];
  if (!value) throw new Error(`no ${name} in the page: ${html.slice(0, 300)}`);
  return value;
};

/** The key the enrolment page shows (base32 in groups of four), without its spaces. */
export const shownSecret = (html: string): string | undefined =>
  /<code id="otp-secret">([A-Z2-7 ]+)<\/code>/.exec(html)?.[1]?.replaceAll(' ', '');
