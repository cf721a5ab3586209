import type { BenchResults } from '../../../bench/lib/types.ts';

/** Bench results in which only section 9 ran (as in a `--sections=9` run), with the given user flows. */
export function sectionNineResults(
  users: Exclude<BenchResults['users'], { error: string } | undefined>,
  dynamodbPeer: BenchResults['meta']['dynamodbPeer'] = { endpoint: 'http://127.0.0.1:8001' },
): BenchResults {
  return {
    meta: {
      startedAt: '2026-11-25T07:00:00.000Z',
      finishedAt: '2026-11-25T07:05:00.000Z',
      durationS: 300,
      commit: '0123456789abcdef',
      dirty: false,
      node: 'v24.0.0',
      cpuModel: 'test cpu',
      cpus: 2,
      loadAvg: { before: 0.1, after: 0.2 },
      pinning: 'Pinned.',
      options: {},
      versions: { 'oidc-provider': '9.13.3' },
      liftedThrottles: [],
      fixtures: {
        ours: { clientId: 'c', resource: 'r', scope: 's', source: 'default-client' },
        theirs: { resource: 'r', scope: 's', introspectedResource: 'o' },
      },
      redis: { version: '7.0.15' },
      dynamodbPeer,
      fullRun: false,
    },
    users,
    targets: [],
    errors: [],
  } as Partial<BenchResults> as BenchResults;
}
