/**
 * What a row of the route table says (docs/design.md §2): the table itself is assembled in
 * route-table.ts from one row file per area (health, OAuth, management, pages, docs).
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Throttle {
  /** Steady-state requests per second (API Gateway `rateLimit`). */
  readonly rateLimit: number;
  /** Bucket size (API Gateway `burstLimit`). */
  readonly burstLimit: number;
}

/** What the handler's function may touch: the CDK app turns this into least-privilege grants. */
export interface Access {
  /** Left out: no table access at all. */
  readonly table?: 'read' | 'readwrite';
  /** KMS operations: `decrypt` unwraps signing keys / secrets, `encrypt` wraps new secrets, `sign` for kms-sign mode, `generate` makes key pairs. */
  readonly kms: readonly ('decrypt' | 'encrypt' | 'sign' | 'generate')[];
  /** Sends email (shared/email/): only these functions get `ses:SendEmail` and the sender settings. */
  readonly email?: true;
}

/**
 * `none`: public. `client`: the use case authenticates the caller itself (its client, RFC 6749
 * §2.3; or, at `/userinfo`, its bearer token).
 * `bearer`: an access token of this service (DESIGN §4, docs/contract.md §4), with `scope` when given; with
 * `self`, a user's own token also passes when the path parameter of that name is the user's id
 * (docs/contract.md §7.6 "self" routes, shared/http/authenticate.ts).
 */
export type AuthRule = { type: 'none' } | { type: 'client' } | { type: 'bearer'; scope?: string; self?: string };

export interface Route {
  readonly method: HttpMethod;
  /** API Gateway resource path; `{name}` marks a path parameter. */
  readonly path: string;
  /** Handler module relative to the project root, without extension; it exports `handler`. */
  readonly handler: string;
  readonly auth: AuthRule;
  readonly access: Access;
  /** Overrides the stage's default throttle for this route. */
  readonly throttle?: Throttle;
}
