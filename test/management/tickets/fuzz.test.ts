import { CreateTicketBody } from '#shared/management/tickets/create-ticket.ts';
import { type FuzzRoute, fuzzArea, M, type Seeds } from '../../support/fuzz/fuzz-support.ts';

/**
 * docs/design.md §3.12 over the Tickets endpoints (docs/contract.md §6): whatever the body, query and headers,
 * never a 5xx, and every 4xx a JSON `{code, message}`.
 */
const T = `${M}/tickets`;
const fitting = (s: Seeds) => [
  { user_id: s.userId },
  { user_id: s.userId, result_url: 'https://app.example/done', ttl_sec: 60 },
  { user_id: s.userId, client_id: s.clientId },
];
const routes: FuzzRoute[] = ['password-change', 'email-verification', 'otp-enrollment'].map((kind) => ({
  route: `POST ${T}/${kind}`,
  body: CreateTicketBody,
  fitting,
}));

fuzzArea('fuzz: Tickets endpoints never answer 5xx to client input', {
  table: 'fuzz-tickets',
  salt: 700,
  area: (r) => r.path.startsWith(T),
  routes,
});
