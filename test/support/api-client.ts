/** The public API over real HTTP, as a client of a running stack uses it. */
export function apiClient(baseUrl: string, apiKey: string) {
  async function call(method: string, path: string, body?: unknown, key = apiKey) {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { Authorization: `Bearer ${key}`, ...(body ? { "Content-Type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : null) as any };
  }
  async function waitUntil(id: string, pred: (job: any) => boolean, timeoutMs = 60_000, pollMs = 150) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { body } = await call("GET", `/v1/jobs/${id}`);
      if (pred(body)) return body;
      if (Date.now() > deadline) throw new Error(`job ${id} stuck: ${JSON.stringify(body)}`);
      await new Promise((r) => setTimeout(r, pollMs));
    }
  }
  return { call, waitUntil };
}

export const isFinished = (job: { status: string }) =>
  ["completed", "failed", "canceled", "rejected"].includes(job.status);
