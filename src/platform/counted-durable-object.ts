import { currentOwner, type LimitVars } from "./invocation-budget.ts";
import { startInvocation } from "./invocation.ts";

const ENTRY_POINT = Symbol("counted-entry-point");

/**
 * Makes each method of a Durable Object class (its RPC methods, `fetch`, `alarm`) an invocation of
 * its own, as the platform counts them: each event it receives gets its own query and subrequest
 * budget (src/platform/invocation-budget.ts). Every method on the class's own prototype, so a new
 * one cannot be forgotten; a method called from within the object's own invocation stays in it.
 * Called in the class's static block.
 */
export function countEachInvocation(cls: { prototype: object }): void {
  const proto = cls.prototype;
  for (const name of Object.getOwnPropertyNames(proto)) {
    const d = Object.getOwnPropertyDescriptor(proto, name)!;
    if (name === "constructor" || typeof d.value !== "function") continue;
    const method = d.value as (...args: unknown[]) => unknown;
    const entry = function (this: { env: LimitVars }, ...args: unknown[]) {
      if (currentOwner() === this) return Reflect.apply(method, this, args);
      return startInvocation(this.env, () => Reflect.apply(method, this, args), this);
    };
    Object.defineProperty(entry, ENTRY_POINT, { value: true });
    Object.defineProperty(entry, "name", { value: name });
    Object.defineProperty(proto, name, { ...d, value: entry });
  }
}

/** Whether a method starts an invocation of its own (countEachInvocation made it so). */
export function isCountedEntryPoint(fn: unknown): boolean {
  return typeof fn === "function" && (fn as unknown as Record<symbol, unknown>)[ENTRY_POINT] === true;
}
