import type { FederatedLoginDeps } from '../../browser/federated-login.ts';
import type { ResourceRecord } from '../../records/resource-record.ts';
import type { AuthorizationCodesRepository } from '../../store/sessions/authorization-codes-repository.ts';
import type { ConsentsRepository } from '../../store/sessions/consents-repository.ts';
import type { InteractionsRepository } from '../../store/sessions/interactions-repository.ts';
import type { PushedRequestsRepository } from '../../store/sessions/pushed-requests-repository.ts';
import type { SessionsRepository } from '../../store/sessions/sessions-repository.ts';
import type { OAuthDeps } from '../oauth-deps.ts';

/** What `/authorize` and `/authorize/resume` use (docs/design.md §3.2: dependencies as arguments). */
export interface AuthorizeDeps {
  oauth: OAuthDeps;
  sessions: Pick<SessionsRepository, 'findSession'>;
  interactions: Pick<InteractionsRepository, 'createInteraction' | 'readInteraction' | 'consumeInteraction'>;
  consents: Pick<ConsentsRepository, 'findConsent'>;
  codes: AuthorizationCodesRepository;
  /** Pushed authorization requests (RFC 9126): `/par` pushes, `/authorize` takes once. */
  pushedRequests: PushedRequestsRepository;
  /** A Resource record (its `skip_consent_for_first_party`, docs/contract.md §7.4), by id. */
  getResource(id: string): Promise<ResourceRecord | undefined>;
  /** `connection=` (docs/federation.md "Federated login"): the tenant's providers and the sign-in sent to one; absent: refused. */
  federation?: FederatedLoginDeps;
}
