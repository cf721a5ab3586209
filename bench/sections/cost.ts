import { round } from '../lib/stats.ts';

/**
 * Published on-demand prices, us-east-1, checked for this bench (AWS pricing pages for Lambda, API
 * Gateway, DynamoDB, KMS). Free tiers and volume tiers are left out: this is the marginal price of
 * the millionth token for an account past the free tier.
 */
export const PRICES = {
  region: 'us-east-1',
  /** Lambda, arm64: per GB-second (first 7.5 billion GB-s a month) and per request. */
  lambdaArmPerGbSecond: 0.0000133334,
  lambdaPerMillionRequests: 0.2,
  /** API Gateway REST API, per million requests (first 333 million a month). */
  apiGatewayRestPerMillion: 3.5,
  /** API Gateway HTTP API, per million requests (first 300 million), for comparison only. */
  apiGatewayHttpPerMillion: 1.0,
  /** DynamoDB on-demand, per million read / write request units. */
  dynamoDbPerMillionRru: 0.125,
  dynamoDbPerMillionWru: 0.625,
  /** KMS symmetric requests (Decrypt, Encrypt), per 10,000. */
  kmsSymmetricPer10k: 0.03,
  /** KMS asymmetric requests other than RSA 2048 (ECC Sign: the kms-sign mode), per 10,000. */
  kmsAsymmetricPer10k: 0.15,
  /** CloudWatch Logs ingestion (Standard log class), per GB: API Gateway access logs and Lambda function logs. */
  cloudWatchIngestPerGb: 0.5,
  /** CloudWatch counts each log event as its message bytes plus 26 bytes (PutLogEvents sizing). */
  cloudWatchEventOverheadBytes: 26,
  /** Lambda bills duration in 1 ms steps, rounded up, per invocation. */
  lambdaBillingStepMs: 1,
  /** Memory at which a Lambda function has one full vCPU (AWS Lambda docs: CPU scales with memory). */
  lambdaFullVcpuMb: 1769,
} as const;

export interface CostInputs {
  /** CPU time per token of the in-process handler here (one core of this machine), µs. */
  handlerUsPerToken: number;
  /** Token function memory (infra/constructs/route-api.ts FUNCTION_MEMORY_MB). */
  memoryMb: number;
  /** Warm: DynamoDB read request units per token (measured over the in-process run). */
  warmRruPerToken: number;
  warmKmsPerToken: number;
  /** Cold container: RRU and KMS calls of the first token. */
  coldRru: number;
  coldKmsCalls: number;
  /** Time from process start to the first token (cold-start section), ms: billed as INIT duration. */
  coldInitMs: number;
  /** Assumption: fresh containers per million tokens. */
  coldStartsPerMillion: number;
  /** Log bytes per token: the function's own lines (measured), Lambda's platform lines, the API Gateway access-log line. */
  logs: LogBytes;
}

export interface LogBytes {
  /** What the handler wrote to stdout per token (measured in section 3): Powertools JSON lines. */
  functionBytes: number;
  functionEvents: number;
  /** Lambda's own lines per invocation in JSON log format (platform.start, platform.report), sized from representative records. */
  platformBytes: number;
  platformEvents: number;
  /** One access-log line per request (infra/constructs/route-api.ts accessLogFormat, rendered with representative values). */
  accessBytes: number;
  /**
   * The EMF lines of the metrics (shared/observability/service-metrics.ts) per token: one
   * publication (measured: what one token's counts print) per container per publication interval,
   * shared by the tokens of that interval (`tokensPerPublication`).
   */
  metricsBytesPerPublication: number;
  metricsEventsPerPublication: number;
  tokensPerPublication: number;
}

export interface CostLine {
  item: string;
  basis: string;
  usdPerMillion: number;
}

export interface CostResult {
  inputs: CostInputs;
  /** Assumed Lambda duration per warm token and what is billed. */
  lambdaMsPerToken: number;
  lambdaBilledMsPerToken: number;
  lines: CostLine[];
  totalUsdPerMillion: number;
  /** The same million tokens in kms-sign mode (one KMS Sign per token) instead of envelope. */
  kmsSignModeExtraUsd: number;
  /** With an HTTP API instead of a REST API. */
  totalWithHttpApiUsd: number;
  /** At which per-container rate the warm DynamoDB reads per token cross 0.05 (5 s record cache). */
  assumptions: string[];
}

export function costPerMillion(i: CostInputs): CostResult {
  const P = PRICES;
  const vcpu = Math.min(1, i.memoryMb / P.lambdaFullVcpuMb);
  // CPU-bound work stretches by 1/vcpu share on Lambda; our machine's core vs Graviton is taken as 1:1.
  const lambdaMs = i.handlerUsPerToken / 1000 / vcpu;
  const billedMs = Math.max(P.lambdaBillingStepMs, Math.ceil(lambdaMs / P.lambdaBillingStepMs) * P.lambdaBillingStepMs);
  const gb = i.memoryMb / 1024;
  const M = 1_000_000;
  const lines: CostLine[] = [
    {
      item: 'API Gateway (REST)',
      basis: `1 request per token × $${P.apiGatewayRestPerMillion}/M`,
      usdPerMillion: P.apiGatewayRestPerMillion,
    },
    {
      item: 'Lambda requests',
      basis: `1 invocation per token × $${P.lambdaPerMillionRequests}/M`,
      usdPerMillion: P.lambdaPerMillionRequests,
    },
    {
      item: 'Lambda duration',
      basis: `${billedMs} ms billed × ${gb} GB × $${P.lambdaArmPerGbSecond}/GB-s (arm64)`,
      usdPerMillion: ((M * billedMs) / 1000) * gb * P.lambdaArmPerGbSecond,
    },
    {
      item: 'Lambda INIT (cold starts)',
      basis: `${i.coldStartsPerMillion} cold starts × ${Math.round(i.coldInitMs)} ms × ${gb} GB`,
      usdPerMillion: ((i.coldStartsPerMillion * i.coldInitMs) / 1000) * gb * P.lambdaArmPerGbSecond,
    },
    {
      item: 'DynamoDB reads',
      basis: `${round(i.warmRruPerToken)} RRU/token warm + ${i.coldStartsPerMillion} × ${round(i.coldRru)} RRU cold × $${P.dynamoDbPerMillionRru}/M RRU`,
      usdPerMillion: ((M * i.warmRruPerToken + i.coldStartsPerMillion * i.coldRru) / M) * P.dynamoDbPerMillionRru,
    },
    {
      item: 'KMS (envelope mode)',
      basis: `${round(i.warmKmsPerToken)} calls/token warm + ${i.coldStartsPerMillion} × ${i.coldKmsCalls} Decrypt per cold start × $${P.kmsSymmetricPer10k}/10k`,
      usdPerMillion: ((M * i.warmKmsPerToken + i.coldStartsPerMillion * i.coldKmsCalls) / 10_000) * P.kmsSymmetricPer10k,
    },
    {
      item: 'CloudWatch Logs: function logs',
      basis: `${Math.round(i.logs.functionBytes)} B handler + ${i.logs.platformBytes} B Lambda platform lines + ${i.logs.functionEvents + i.logs.platformEvents} × ${P.cloudWatchEventOverheadBytes} B per event × $${P.cloudWatchIngestPerGb}/GB`,
      usdPerMillion:
        ((M *
          (i.logs.functionBytes +
            i.logs.platformBytes +
            (i.logs.functionEvents + i.logs.platformEvents) * P.cloudWatchEventOverheadBytes)) /
          1e9) *
        P.cloudWatchIngestPerGb,
    },
    {
      item: 'CloudWatch Logs: metrics (EMF)',
      basis: `${Math.round(i.logs.metricsBytesPerPublication)} B in ${i.logs.metricsEventsPerPublication} lines + ${P.cloudWatchEventOverheadBytes} B each, per container-minute of ${i.logs.tokensPerPublication} tokens × $${P.cloudWatchIngestPerGb}/GB`,
      usdPerMillion:
        ((M * (i.logs.metricsBytesPerPublication + i.logs.metricsEventsPerPublication * P.cloudWatchEventOverheadBytes)) /
          i.logs.tokensPerPublication /
          1e9) *
        P.cloudWatchIngestPerGb,
    },
    {
      item: 'CloudWatch Logs: API Gateway access log',
      basis: `${i.logs.accessBytes} B + ${P.cloudWatchEventOverheadBytes} B per request × $${P.cloudWatchIngestPerGb}/GB`,
      usdPerMillion: ((M * (i.logs.accessBytes + P.cloudWatchEventOverheadBytes)) / 1e9) * P.cloudWatchIngestPerGb,
    },
  ];
  const total = lines.reduce((a, l) => a + l.usdPerMillion, 0);
  return {
    inputs: i,
    lambdaMsPerToken: round(lambdaMs),
    lambdaBilledMsPerToken: billedMs,
    lines: lines.map((l) => ({ ...l, usdPerMillion: Math.round(l.usdPerMillion * 10000) / 10000 })),
    totalUsdPerMillion: Math.round(total * 1000) / 1000,
    kmsSignModeExtraUsd: Math.round((M / 10_000) * P.kmsAsymmetricPer10k * 1000) / 1000,
    totalWithHttpApiUsd: Math.round((total - P.apiGatewayRestPerMillion + P.apiGatewayHttpPerMillion) * 1000) / 1000,
    assumptions: [
      `Region ${P.region}, on-demand list prices, no free tier, no Savings Plans.`,
      `Lambda arm64, ${i.memoryMb} MB (the token function's memory in infra/constructs/route-api.ts) = ${round(vcpu)} vCPU; the handler's CPU time measured here (${round(i.handlerUsPerToken)} µs/token on one core of this machine) is stretched by 1/${round(vcpu)} and taken 1:1 for a Graviton core; Lambda bills at least ${P.lambdaBillingStepMs} ms per invocation.`,
      `Cold starts: ${i.coldStartsPerMillion} per million tokens (steady traffic keeps containers warm; a spiky or low-rate tenant has more). Since August 2025 Lambda bills the INIT phase; its duration is the measured fresh-process-to-first-token time.`,
      'Warm DynamoDB reads: what the in-process run measured (client and resource cached per container for RECORD_CACHE_TTL_SECONDS, signing keys for KEY_CACHE_TTL_SECONDS). At a low per-container rate the caches expire between tokens and a token costs up to the cold reads.',
      `Logs: CloudWatch Logs ingestion at $${P.cloudWatchIngestPerGb}/GB (Standard class; Lambda's tiered log pricing starts at the same rate), each event counted with ${P.cloudWatchEventOverheadBytes} bytes of overhead; storage after ingestion (and its retention) not counted. Function log: the bytes the token handler wrote to stdout per token in section 3 (${i.logs.functionBytes} B: a successful token logs nothing at INFO, its request line is DEBUG on this quiet route; failures log a line); platform lines: Lambda's JSON-format platform.start and platform.report records, sized from representative records; access log: the stage's format rendered with representative values (36-character request id, IPv4 caller, the measured response length).`,
      `Metrics: each container publishes its counts once a minute (METRICS_PUBLISH_SECONDS=60), the same lines one token's counts print (measured in process); a container serving ${i.logs.tokensPerPublication} tokens a minute shares them among those. Published at every invocation instead they would cost ${Math.round(i.logs.metricsBytesPerPublication)} B per token.`,
      'Not counted: X-Ray, data transfer out, the KMS key itself ($1/month), DynamoDB storage, log storage.',
    ],
  };
}

/**
 * Lambda's own log records per invocation in JSON log format (the construct sets
 * `loggingFormat: JSON`, `systemLogLevel: INFO`): `platform.start` and `platform.report`,
 * with representative values, for their size.
 */
export function platformLogBytes(memoryMb: number): { bytes: number; events: number } {
  const requestId = '8f5c3b1e-4c1a-4f0e-9d7a-2b6c1e0f9a3d';
  const time = '2026-11-24T20:00:00.000Z';
  const start = { time, type: 'platform.start', record: { requestId, version: '$LATEST' } };
  const report = {
    time,
    type: 'platform.report',
    record: {
      requestId,
      metrics: { durationMs: 1.234, billedDurationMs: 2, memorySizeMB: memoryMb, maxMemoryUsedMB: 92 },
      status: 'success',
    },
  };
  return { bytes: JSON.stringify(start).length + JSON.stringify(report).length, events: 2 };
}

/** One access-log line: the stage's format (infra/constructs/route-api.ts) with representative values for each `$context` variable. */
export function accessLogBytes(format: string, responseLength: number): number {
  const values: Record<string, string> = {
    requestId: '8f5c3b1e-4c1a-4f0e-9d7a-2b6c1e0f9a3d',
    extendedRequestId: 'Xb1JtFv4IAMEb3Q=',
    requestTimeEpoch: '1795550400000',
    'identity.sourceIp': '203.0.113.10',
    httpMethod: 'POST',
    resourcePath: '/token',
    path: '/token',
    status: '200',
    protocol: 'HTTP/1.1',
    responseLength: String(responseLength),
    responseLatency: '14',
    integrationLatency: '12',
    integrationStatus: '200',
    'error.responseType': '-',
  };
  const line = format.replace(/\$context\.([A-Za-z.]+)/g, (_, k: string) => {
    if (!(k in values)) throw new Error(`access log variable $context.${k} has no representative value in bench/sections/cost.ts`);
    return values[k]!;
  });
  return Buffer.byteLength(line);
}

export interface MemoryOption {
  memoryMb: number;
  vcpu: number;
  /** Warm token duration projected from the measured CPU time, and what is billed. */
  warmMs: number;
  billedMs: number;
  /** Fresh process to first token, projected (measured on a full core, stretched by 1/vCPU). */
  coldReadyMs: number;
  usdPerMillionDuration: number;
  /** Peak RSS of the leak check over the memory size. */
  rssShare: number;
}

/**
 * Lambda memory sizes for the token function. Lambda gives CPU in proportion to memory (one vCPU
 * at 1,769 MB), so below that the CPU-bound parts (the signature, the module import at a cold
 * start) stretch by 1/vCPU. Recommended: the smallest size whose peak RSS stays under half the
 * memory and whose projected cold start (fresh process to first token) stays under 500 ms; warm
 * tokens are billed the 1 ms minimum at every size listed, so a smaller size is cheaper per token.
 */
export function memoryOptions(i: { handlerUsPerToken: number; coldReadyMs: number; peakRssMb: number }): {
  options: MemoryOption[];
  recommendedMb: number;
  rule: string;
} {
  const P = PRICES;
  const options = [128, 256, 512, 768, 1024, 1536, 1769].map((memoryMb) => {
    const vcpu = Math.min(1, memoryMb / P.lambdaFullVcpuMb);
    const warmMs = i.handlerUsPerToken / 1000 / vcpu;
    const billedMs = Math.max(P.lambdaBillingStepMs, Math.ceil(warmMs / P.lambdaBillingStepMs) * P.lambdaBillingStepMs);
    return {
      memoryMb,
      vcpu: round(vcpu),
      warmMs: round(warmMs),
      billedMs,
      coldReadyMs: round(i.coldReadyMs / vcpu),
      usdPerMillionDuration: round(1e6 * (billedMs / 1000) * (memoryMb / 1024) * P.lambdaArmPerGbSecond),
      rssShare: round(i.peakRssMb / memoryMb),
    };
  });
  const ok = options.find((o) => o.rssShare <= 0.5 && o.coldReadyMs <= 500);
  return {
    options,
    recommendedMb: ok?.memoryMb ?? 1769,
    rule: 'the smallest size with peak RSS ≤ 50% of memory and a projected cold start (fresh process to first token) ≤ 500 ms',
  };
}
