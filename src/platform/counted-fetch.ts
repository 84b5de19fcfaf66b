import { currentBudget } from "./invocation-budget.ts";

let counting = false;

/**
 * Counts every fetch() made in an invocation against its budget (src/platform/invocation-budget.ts):
 * installed once, the first time an invocation starts with the limits on (never in production),
 * so a call site nobody thought of is counted too. A fetch outside any invocation (test code) is
 * not. The one over the limit is rejected, as the platform rejects it. A redirect followed is one
 * more ("Each subrequest in a redirect chain counts"): at least one, since fetch does not say how
 * many; the Worker's own calls follow none (redirect: "manual"), except the resolver's.
 */
export function countFetches(): void {
  if (counting) return;
  counting = true;
  const real = globalThis.fetch;
  globalThis.fetch = async function countedFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const budget = currentBudget();
    budget?.spend("fetch");
    const res = await real(input, init);
    if (budget && res.redirected) {
      try {
        budget.spend("fetch");
      } catch (err) {
        await res.body?.cancel();
        throw err;
      }
    }
    return res;
  } as typeof fetch;
}
