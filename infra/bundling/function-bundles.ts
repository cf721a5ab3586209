import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';

/**
 * Runs esbuild for the CDK app's functions in one worker thread (infra/bundling/bundle-worker.ts)
 * and waits for each build, since CDK's local bundling (`ILocalBundling.tryBundle`) is synchronous.
 * A node process per function (node, the TypeScript loader and esbuild's service started ~100 times
 * per synth) was most of `cdk synth`'s time (docs/benchmarks.md "Synth time by stage count").
 *
 * Each function is bundled once per synth process, however many stages use it: CDK's asset cache
 * (`AssetStaging`) is keyed by the bundling command, which names the entry and the esbuild options
 * (ServiceFunction), so every stage's `Code.fromAsset` after the first reuses the first one's staged
 * directory and hash (test/infra/multi-stage.test.ts).
 */
interface Bundler {
  worker: Worker;
  /** 0 while a build runs, 1 once the worker has answered on `port`. */
  flag: Int32Array;
  port: MessagePort;
}

let bundler: Bundler | undefined;
let built = 0;

/** How many bundles this process has built: one per function and bundling options, whatever the stage count. */
export function bundlesBuilt(): number {
  return built;
}

/** A build taking longer than this means the worker is gone (a busy CI machine builds one in seconds). */
const BUILD_TIMEOUT_MS = 10 * 60_000;

/** Bundles `entry` (relative to `cwd`, the project root) into `<outputDir>/index.mjs` with its source map. */
export function bundleFunctionSync(entry: string, outputDir: string, options: Record<string, unknown>, cwd: string): void {
  bundler ??= startWorker();
  const { worker, flag, port } = bundler;
  Atomics.store(flag, 0, 0);
  worker.postMessage({ entry, outputDir, options, cwd });
  if (Atomics.wait(flag, 0, 0, BUILD_TIMEOUT_MS) === 'timed-out') {
    throw new Error(`Bundling ${entry} gave no answer in ${BUILD_TIMEOUT_MS / 60_000} minutes (infra/bundling/bundle-worker.ts)`);
  }
  const answer = receiveMessageOnPort(port)?.message as { ok: boolean; message?: string } | undefined;
  if (!answer?.ok) throw new Error(`Bundling ${entry} failed: ${answer?.message ?? 'no answer from infra/bundling/bundle-worker.ts'}`);
  built += 1;
}

function startWorker(): Bundler {
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(new URL('./bundle-worker.ts', import.meta.url), { workerData: { flag, port: port2 }, transferList: [port2] });
  // The synth process ends when the app is done, not when the worker is.
  worker.unref();
  port1.unref();
  return { worker, flag, port: port1 };
}
