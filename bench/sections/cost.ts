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
    { item: 'API Gateway (REST)', basis: `1 request per token × $${P.apiGatewayRestPerMillion}/M`, usdPerMillion: P.apiGatewayRestPerMillion },
    { item: 'Lambda requests', basis: `1 invocation per token × $${P.lambdaPerMillionRequests}/M`, usdPerMillion: P.lambdaPerMillionRequests },
    {
      item: 'Lambda duration',
      basis: `${billedMs} ms billed × ${gb} GB × $${P.lambdaArmPerGbSecond}/GB-s (arm64)`,
      usdPerMillion: (M * billedMs) / 1000 * gb * P.lambdaArmPerGbSecond,
    },
    {
      item: 'Lambda INIT (cold starts)',
      basis: `${i.coldStartsPerMillion} cold starts × ${Math.round(i.coldInitMs)} ms × ${gb} GB`,
      usdPerMillion: (i.coldStartsPerMillion * i.coldInitMs) / 1000 * gb * P.lambdaArmPerGbSecond,
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
      'Not counted: CloudWatch Logs ingestion of the function and access logs, X-Ray, data transfer out, the KMS key itself ($1/month), DynamoDB storage.',
    ],
  };
}
