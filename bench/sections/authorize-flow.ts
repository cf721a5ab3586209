import { spawnNode } from '../lib/proc.ts';

/** Section 11's result: the tables `bench/authorize-flow.ts` prints (ratios and DynamoDB calls per step). */
export interface AuthorizeFlowResult {
  flows: number;
  markdown: string;
}

/**
 * Section 11: the authorization-code flow without a browser, ours and oidc-provider's
 * side by side (`bench/authorize-flow.ts`, which also runs alone). It runs as a child process of
 * its own: it starts its own local stack and DynamoDB Local and its own oidc-provider, so nothing
 * of the other sections' state (caches, tables, throttles) leaks into it.
 */
export function benchAuthorizeFlow(o: { flows: number; log: (line: string) => void }): Promise<AuthorizeFlowResult> {
  return new Promise((resolve, reject) => {
    const child = spawnNode(['--import', 'tsx', 'bench/authorize-flow.ts', `--flows=${o.flows}`], { quietStderr: true });
    const out: string[] = [];
    const err: string[] = [];
    child.stdout?.on('data', (d: Buffer) => out.push(d.toString()));
    child.stderr?.on('data', (d: Buffer) => err.push(d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`bench/authorize-flow.ts exited ${code}: ${err.join('').slice(-500)}`));
      // Only the tables and their captions: the script's lines that start a table or caption one.
      const markdown = out
        .join('')
        .split('\n')
        .filter((l) => l.startsWith('|') || l.endsWith(':') || l === '')
        .join('\n')
        .trim();
      o.log(`11 authorization-code flow: ${o.flows} flows each side`);
      resolve({ flows: o.flows, markdown });
    });
  });
}
