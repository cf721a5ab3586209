/**
 * What `/authorize` needs of the browser-flow items the `pages` branch owns (flows-plan.md
 * "Items": Session, Interaction, User Grant; `consentNeeded`): the pinned shapes, as a port. The
 * composition root (authorize-deps.ts) plugs the pages' repositories in.
 */

/** A live session (`findSession`: undefined when missing, expired, ended, or its user blocked or deleted). */
export interface SessionView {
  id: string;
  user_id: string;
  tenant_id: string;
  /** NumericDate of the login (OIDC Core `auth_time`). */
  auth_time: number;
  amr: string[];
}

/** The pinned Interaction (flows-plan.md), as `/authorize` creates and reads it. */
export interface InteractionRecord {
  id: string;
  kind: 'authorize' | 'device';
  tenant_id: string;
  client_id: string;
  scopes: string[];
  resource_id?: string;
  prompt: string[];
  max_age?: number;
  login_hint?: string;
  return_to: string;
  payload: Record<string, unknown>;
  user_id?: string;
  session_id?: string;
  auth_time?: number;
  amr?: string[];
  decision?: 'allow' | 'deny';
  granted_scopes?: string[];
  expires_at: string;
}

export type NewInteraction = Omit<
  InteractionRecord,
  'id' | 'expires_at' | 'return_to' | 'user_id' | 'session_id' | 'auth_time' | 'amr' | 'decision' | 'granted_scopes'
> & {
  /** Builds `return_to` from the new id (the id is made by the repository). */
  returnTo(id: string): string;
};

export interface ConsentQuestion {
  client: { is_first_party: boolean };
  /** The Resource the token is for; undefined: `/userinfo` (OIDC scopes only). */
  resource: { skip_consent_for_first_party: boolean } | undefined;
  grant: { scopes: readonly string[] } | undefined;
  scopes: readonly string[];
  prompt: readonly string[];
}

export interface BrowserStores {
  findSession(cookieValue: string): Promise<SessionView | undefined>;
  createInteraction(input: NewInteraction): Promise<InteractionRecord>;
  readInteraction(id: string): Promise<InteractionRecord | undefined>;
  /** One conditional delete: the item goes to the first caller only. */
  consumeInteraction(id: string): Promise<InteractionRecord | undefined>;
  findUserGrant(userId: string, clientId: string, resourceId: string | undefined): Promise<{ scopes: readonly string[] } | undefined>;
  /** API.md §7.4's skip rules. */
  consentNeeded(question: ConsentQuestion): boolean;
}
