import { afterAll, beforeAll, expect } from "vitest";
import { apiClient, isFinished } from "./api-client.ts";
import { startDevStack, type DevStack } from "./dev-stack.ts";
import { mediaFixtures } from "./media-fixtures.ts";
import { startStaticServer } from "./static-server.ts";

type LocalStack = {
  stack: DevStack;
  media: Awaited<ReturnType<typeof startStaticServer>>;
  api: ReturnType<typeof apiClient>;
  /** Creates a job (expecting 202) and waits until it is finished. */
  runToEnd: (body: unknown, timeoutMs?: number) => Promise<any>;
};

/**
 * `npm run dev`'s stack (wrangler dev, local runner, host ffmpeg) with a loopback media server holding
 * the media fixtures, started before a test file's tests and stopped after. Fields are set in beforeAll.
 */
export function useLocalStack() {
  const fx = mediaFixtures();
  const local = {} as LocalStack;
  beforeAll(async () => {
    local.media = await startStaticServer(fx.dir);
    local.stack = await startDevStack({ ALLOWED_PRIVATE_HOSTS: "127.0.0.1" });
    local.api = apiClient(local.stack.baseUrl, local.stack.apiKey);
    local.runToEnd = async (body, timeoutMs = 90_000) => {
      const created = await local.api.call("POST", "/v1/jobs", body);
      expect(created.status, JSON.stringify(created.body)).toBe(202);
      return local.api.waitUntil(created.body.id, isFinished, timeoutMs);
    };
  });
  afterAll(async () => {
    await local.stack?.stop();
    await local.media?.close();
  });
  return { fx, local };
}
