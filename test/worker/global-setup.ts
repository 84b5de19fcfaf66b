import type { TestProject } from "vitest/node";
import { mediaFixtures } from "../support/media-fixtures.ts";
import { startRunner } from "../support/runner-process.ts";
import { startStaticServer } from "../support/static-server.ts";
import { startWebhookReceiver } from "../support/webhook-receiver.ts";

/** The real runner (host ffmpeg) and a loopback file server for URL inputs. */
export default async function setup(project: TestProject) {
  const fixtures = mediaFixtures();
  const runner = await startRunner(Number(process.env.FFJOBS_TEST_RUNNER_PORT), {
    RUNNER_CONTROL_SECRET: process.env.FFJOBS_TEST_RUNNER_SECRET!,
  });
  const files = await startStaticServer(fixtures.dir);
  const receiver = await startWebhookReceiver();
  project.provide("mediaBaseUrl", files.url);
  project.provide("webhookReceiverUrl", receiver.url);
  return async () => {
    runner.stop();
    await files.close();
    await receiver.close();
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    mediaBaseUrl: string;
    webhookReceiverUrl: string;
  }
}
