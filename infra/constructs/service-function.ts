import { type ExecFileSyncOptions, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AssetHashType, DockerImage, type Duration } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { type BundlingOptions, LogLevel as EsbuildLogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { bundleFunctionSync } from '../bundling/function-bundles.ts';

/** The repository root: route-table handler modules (`functions/oauth/token`) are relative to it. */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';

/**
 * Dependency budgets (shared/config.ts) of the functions no caller waits on, bootstrap and key
 * rotation: KMS generates RSA key pairs for them, which can take seconds, and their own function
 * timeouts are minutes. Request-path functions keep the defaults (docs/operations.md).
 */
export const BACKGROUND_BUDGET_ENV: Readonly<Record<string, string>> = {
  DYNAMODB_ATTEMPT_TIMEOUT_MS: '5000',
  DYNAMODB_MAX_ATTEMPTS: '3',
  KMS_ATTEMPT_TIMEOUT_MS: '10000',
  KMS_MAX_ATTEMPTS: '3',
};

/** Settings shared by every function of a stage. */
export interface FunctionDefaults {
  /** The configuration every handler reads (shared/config.ts). */
  readonly environment: Readonly<Record<string, string>>;
  /** One log group for all functions (log streams carry the function name). */
  readonly logGroup: logs.ILogGroup;
  /** @default 'INFO' */
  readonly logLevel?: LogLevel;
  /**
   * X-Ray active tracing (Lambda's own segment per invocation); where the function is traced with
   * the SDK (`tracer`), its subsegments too. Off: the Tracer is turned off as well. @default false
   */
  readonly tracing?: boolean;
  /**
   * Replaces the esbuild bundle of a handler module; return `undefined` to bundle it. Tests use it
   * to synthesize route tables whose handler sources do not exist.
   * @default - every handler is bundled from `<projectRoot>/<handler>.ts`
   */
  readonly codeFor?: (handlerModule: string) => lambda.Code | undefined;
}

export interface ServiceFunctionProps extends FunctionDefaults {
  /** Handler module relative to the project root, without extension; it exports `handler`. */
  readonly handlerModule: string;
  /** Shared per access profile (see AccessRoles). */
  readonly role: iam.IRole;
  /** @default 512 */
  readonly memorySize?: number;
  /** Every function states its own: route functions by route group (shared/routes/function-groups.ts), bootstrap and rotation theirs. */
  readonly timeout: Duration;
  /** Shell commands that add files beside the bundled code (`outputDir`), e.g. the API docs (RouteApi). */
  readonly afterBundling?: (outputDir: string) => string[];
  /**
   * `sdk`: Powertools Tracer is bundled (`#function-tracing` aliased to shared/observability/sdk-tracing.ts):
   * the handler's subsegment and one per DynamoDB, KMS and SES call. `platform`: no X-Ray SDK in the
   * bundle, Lambda's segment only (the hot path: RouteApi `PLATFORM_TRACED`; docs/operations.md
   * "Metrics and traces").
   * @default 'sdk'
   */
  readonly tracer?: 'sdk' | 'platform';
}

/**
 * The esbuild flag that puts Powertools Tracer into a function's bundle: the code imports its
 * tracing from `#function-tracing`, which package.json maps to the SDK-free
 * shared/observability/platform-tracing.ts (so `BUNDLING` alone, as the benchmark's bundles use it,
 * gives the hot path's bundle). The path is relative to the project root, where esbuild runs.
 */
export const SDK_TRACING_ALIAS = { '--alias:#function-tracing': './shared/observability/sdk-tracing.ts' } as const;

/**
 * How every handler is bundled, in NodejsFunction's `BundlingOptions` shape: the construct runs
 * esbuild with these through `esbuildOptionsOf` (infra/bundling/esbuild-options.ts, which adds the
 * plugins), and so do the benchmark's cold-start section and the token bundle's budget test.
 */
export const BUNDLING = {
  format: OutputFormat.ESM,
  target: 'node24',
  minify: true,
  sourceMap: true,
  // Stack traces map to file:line without shipping the sources themselves.
  sourcesContent: false,
  mainFields: ['module', 'main'],
  // Event streams (Smithy's codec and serde, ~15 KB) are reached only by a dynamic import in the
  // protocol layer, for operations that stream events; no DynamoDB or KMS operation does, so the
  // import never runs and need not be bundled (docs/benchmarks.md "Token function bundle").
  externalModules: ['@smithy/core/event-streams'],
  // ESM output: give bundled CommonJS dependencies the `require` they expect.
  banner: "import{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);",
  // Lambda gives credentials in the environment: the SDK's environment provider replaces its
  // default chain (infra/bundling/env-credential-provider.ts). The DynamoDB client's endpoint
  // discovery cache, never used, holds a Map-based LRU instead of mnemonist's
  // (infra/bundling/endpoint-lru-cache.ts). The paths are resolved from the project root, where
  // NodejsFunction runs esbuild.
  esbuildArgs: {
    '--alias:@aws-sdk/credential-provider-node': './infra/bundling/env-credential-provider.ts',
    '--alias:mnemonist/lru-cache': './infra/bundling/endpoint-lru-cache.ts',
  },
  // `npm run synth` stays quiet: esbuild reports errors only (not every bundle's size), and the
  // commands run after bundling (the docs functions' files) print no npm warnings.
  logLevel: EsbuildLogLevel.ERROR,
  environment: { NPM_CONFIG_LOGLEVEL: 'error' },
} as const satisfies BundlingOptions;

/**
 * The node flags of every function (`NODE_OPTIONS`; the benchmark's cold starts start node with the
 * same). None: `--enable-source-maps` made node parse the bundle's source map at every cold start,
 * about a third of the token function's import time (docs/benchmarks.md "Token function bundle").
 * The map still ships beside the bundle, so a logged stack trace can be mapped afterwards
 * (docs/deploy.md "Functions").
 */
export const FUNCTION_NODE_FLAGS: readonly string[] = [];

/**
 * One handler module as a Lambda function: Node.js 24 on arm64 (cheaper per GB-s than x86 and at
 * least as fast for this CPU-light work), bundled by esbuild into one minified ESM file with a
 * source map. The AWS SDK is bundled too rather than taken from the runtime: the version is the one
 * the tests ran against, and a tree-shaken bundle loads faster than the runtime's full SDK.
 */
export class ServiceFunction extends NodejsFunction {
  readonly handlerModule: string;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    const override = props.codeFor?.(props.handlerModule);
    const entry = join(PROJECT_ROOT, `${props.handlerModule}.ts`);
    if (!override && !existsSync(entry)) {
      throw new Error(
        `Handler module "${props.handlerModule}" not found: expected ${entry} exporting "handler" (shared/routes/route-table.ts lists it).`,
      );
    }
    const logLevel = props.logLevel ?? 'INFO';
    super(scope, id, {
      description: props.handlerModule,
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout,
      role: props.role,
      environment: {
        ...props.environment,
        POWERTOOLS_LOG_LEVEL: logLevel,
        // Powertools Tracer stays off where the function is not traced (it would find no segment).
        ...(props.tracing ? {} : { POWERTOOLS_TRACE_ENABLED: 'false' }),
        ...(FUNCTION_NODE_FLAGS.length ? { NODE_OPTIONS: FUNCTION_NODE_FLAGS.join(' ') } : {}),
      },
      logGroup: props.logGroup,
      // JSON platform logs (START/REPORT) next to Powertools' JSON lines; one format to query.
      loggingFormat: lambda.LoggingFormat.JSON,
      applicationLogLevelV2: lambda.ApplicationLogLevel[logLevel],
      systemLogLevelV2: lambda.SystemLogLevel.INFO,
      tracing: props.tracing ? lambda.Tracing.ACTIVE : undefined,
      code: override ?? bundledCode(entry, bundlingOf(props), props.afterBundling),
      handler: 'index.handler',
    });
    this.handlerModule = props.handlerModule;
  }
}

function bundlingOf(props: ServiceFunctionProps): BundlingOptions {
  return (props.tracer ?? 'sdk') === 'sdk' ? { ...BUNDLING, esbuildArgs: { ...BUNDLING.esbuildArgs, ...SDK_TRACING_ALIAS } } : BUNDLING;
}

/**
 * The handler bundled into `index.mjs` (with its source map) by esbuild in the synth's bundle worker
 * (infra/bundling/function-bundles.ts), then `afterBundling`'s commands run in the output folder's
 * shell, as NodejsFunction ran its command hooks. The asset is hashed by its output like
 * NodejsFunction's, and skipped like it when the stack is not being bundled
 * (`aws:cdk:bundling-stacks`). Every stage of one synth shares the bundle: CDK's asset cache is
 * keyed by `command`, which names the entry and the options.
 */
function bundledCode(entry: string, bundling: BundlingOptions, afterBundling?: (outputDir: string) => string[]): lambda.Code {
  const module = relative(PROJECT_ROOT, entry);
  const env = { ...process.env, ...bundling.environment };
  return lambda.Code.fromAsset(PROJECT_ROOT, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Never pulled: bundling always runs locally (esbuild is a dependency of the project).
      image: DockerImage.fromRegistry('dummy'),
      // Names what is built, so that no two functions share an entry of CDK's bundling cache.
      command: ['esbuild', module, JSON.stringify(bundling), ...(afterBundling?.('<output>') ?? [])],
      local: {
        tryBundle(outputDir) {
          bundleFunctionSync(module, outputDir, bundling as unknown as Record<string, unknown>, PROJECT_ROOT);
          // Whatever they print goes to stderr: the app's stdout is CDK's.
          const options: ExecFileSyncOptions = { cwd: PROJECT_ROOT, env, stdio: ['ignore', process.stderr, 'inherit'] };
          for (const command of afterBundling?.(outputDir) ?? []) execFileSync('bash', ['-c', command], options);
          return true;
        },
      },
    },
  });
}
