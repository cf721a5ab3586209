import type { AuthorizeFlowResult } from '../sections/authorize-flow.ts';
import type { ColdStartResult } from '../sections/cold-start.ts';
import type { CostResult, memoryOptions } from '../sections/cost.ts';
import type { OperationCost } from '../sections/ddb-per-request.ts';
import type { HttpResults } from '../sections/http-compare.ts';
import type { LeakResult } from '../sections/leak.ts';
import type { LimitsResult } from '../sections/limits.ts';
import type { ListsResult } from '../sections/lists.ts';
import type { ObservabilityCost } from '../sections/observability.ts';
import type { RbacBenchResult } from '../sections/rbac.ts';
import type { UserFlowsResult } from '../sections/user-flows.ts';
import type { TokenFixture } from './fixture.ts';
import type { LiftedThrottle } from './throttles.ts';

export interface BenchMeta {
  startedAt: string;
  finishedAt: string;
  durationS: number;
  commit: string;
  dirty: boolean;
  node: string;
  cpuModel: string;
  cpus: number;
  /** 1-minute load average before and after: how busy the shared machine was. */
  loadAvg: { before: number; after: number };
  pinning: string;
  options: Record<string, unknown>;
  versions: Record<string, string>;
  liftedThrottles: LiftedThrottle[];
  /** redis-server for oidc-provider's Redis adapter: its version, or why it was not there. */
  redis: { version: string } | { missing: string };
  /** The DynamoDB Local of oidc-provider's DynamoDB storage (section 9's like-for-like peer): where it ran, or why not. */
  dynamodbPeer?: { endpoint: string } | { missing: string };
  /** Every section with the default settings (only such a run may become latest.*). */
  fullRun: boolean;
  fixtures: { ours: Omit<TokenFixture, 'clientSecret'>; theirs: { resource: string; scope: string; introspectedResource: string } };
}

export interface SectionError {
  error: string;
}

export interface BenchResults {
  meta: BenchMeta;
  http: HttpResults | undefined;
  limits: LimitsResult | SectionError | undefined;
  lists: ListsResult | SectionError | undefined;
  coldStart: (ColdStartResult & { kmsStandInCalls?: Record<string, number> }) | undefined;
  ddb: { operations: OperationCost[] } | undefined;
  cost: (CostResult & { memory: ReturnType<typeof memoryOptions> | undefined }) | SectionError | undefined;
  leak: LeakResult | SectionError | undefined;
  /** Section 9: the user flows. */
  users: UserFlowsResult | SectionError | undefined;
  /** Section 10: RBAC. */
  rbac?: RbacBenchResult | SectionError | undefined;
  /** Section 11: the authorization-code flow side by side with oidc-provider. */
  authorizeFlow?: AuthorizeFlowResult | SectionError | undefined;
  /** Section 7: metrics and traces on the token path, side by side. */
  observability?: ObservabilityCost | SectionError | undefined;
  targets: TargetCheck[];
  errors: { section: string; message: string }[];
}

/** One target of the report: what was measured against it and whether it held. */
export interface TargetCheck {
  target: string;
  measured: string;
  /** null: not measured in this run (a section failed or its endpoint does not exist yet). */
  met: boolean | null;
  note?: string;
}
