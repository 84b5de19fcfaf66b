import { afterAll, beforeAll } from "vitest";
import { freePort } from "../support/free-port.ts";
import { mediaFixtures } from "../support/media-fixtures.ts";
import { startPutReceiver } from "../support/put-receiver.ts";
import { startRunner } from "../support/runner-process.ts";
import { startStaticServer } from "../support/static-server.ts";
import { runnerApi } from "./runner-api.ts";

type Harness = {
  runner: Awaited<ReturnType<typeof startRunner>>;
  media: Awaited<ReturnType<typeof startStaticServer>>;
  storage: Awaited<ReturnType<typeof startPutReceiver>>;
  api: ReturnType<typeof runnerApi>;
};

/**
 * A real runner (host ffmpeg, sandbox on) with a loopback media server for URL inputs and a loopback
 * PUT receiver standing in for storage, started before the file's tests and stopped after.
 */
export function useRunnerHarness(runnerEnv: Record<string, string> = {}, mediaDir?: string) {
  const fx = mediaFixtures();
  const h = {} as Harness;
  beforeAll(async () => {
    h.runner = await startRunner(await freePort(), runnerEnv);
    h.media = await startStaticServer(mediaDir ?? fx.dir);
    h.storage = await startPutReceiver();
    h.api = runnerApi(h.runner);
  });
  afterAll(async () => {
    h.runner?.stop();
    await h.media?.close();
    await h.storage?.close();
  });
  return {
    h,
    fx,
    /** A URL input served by the media server. */
    input: (name: string, file: string) => ({ name, url: `${h.media.url}/${file}`, fileName: file, trusted: false }),
    /** A declared output uploaded to the receiver under a fresh path. */
    output: (name: string, fileName: string, contentType = "application/octet-stream") => ({
      name,
      fileName,
      contentType,
      uploadUrl: `${h.storage.url}/${crypto.randomUUID()}/${fileName}`,
    }),
  };
}
