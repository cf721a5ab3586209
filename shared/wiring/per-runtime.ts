import type { Runtime } from '../runtime.ts';

/**
 * `build` run once per runtime (once per container in Lambda, once per local stack locally), its
 * result kept for the runtime's life: the dependencies of a group of use cases (docs/design.md §3.2),
 * built at the composition root and handed to the use cases as an argument.
 */
export function perRuntime<T>(build: (runtime: Runtime) => T): (runtime: Runtime) => T {
  const built = new WeakMap<Runtime, T>();
  return (runtime) => {
    let value = built.get(runtime);
    if (value === undefined) {
      value = build(runtime);
      built.set(runtime, value);
    }
    return value;
  };
}
