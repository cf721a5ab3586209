/**
 * The worker thread that runs esbuild for the CDK app (infra/bundling/function-bundles.ts): one per
 * synth process, started at the first bundle, so that every function is built by the same esbuild
 * service instead of a node process each. A request is `{ entry, outputDir, options, cwd }` (options
 * in the construct's `BUNDLING` shape) for infra/bundling/bundle-function.ts; the answer goes to
 * `workerData.port`, then the shared flag wakes the waiting app thread.
 */
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';

interface Request {
  entry: string;
  outputDir: string;
  options: Record<string, unknown>;
  cwd: string;
}

const { flag, port } = workerData as { flag: Int32Array; port: MessagePort };

parentPort!.on('message', async (request: Request) => {
  try {
    // Imported here, not at the top: a module that fails to load is then an answer naming the error,
    // not a worker that never answers while the app thread waits.
    const { bundleFunction } = await import('./bundle-function.ts');
    await bundleFunction(request.entry, request.outputDir, request.options, request.cwd);
    port.postMessage({ ok: true });
  } catch (error) {
    port.postMessage({ ok: false, message: error instanceof Error ? error.message : String(error) });
  }
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
});
