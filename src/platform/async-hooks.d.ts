// The part of node:async_hooks the Worker uses (nodejs_compat provides it at run time). The Worker's
// tsconfig loads the Workers types, not Node's, which would clash with them.
declare module "node:async_hooks" {
  export class AsyncLocalStorage<T> {
    getStore(): T | undefined;
    run<R>(store: T, fn: () => R): R;
  }
}
