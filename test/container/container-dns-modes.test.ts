import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DnsMode } from "../../lab/egress-sidecar/dns.ts";
import { apiClient, isFinished } from "../support/api-client.ts";
import type { DevStack } from "../support/dev-stack.ts";
import { mediaFixtures } from "../support/media-fixtures.ts";
import { startStaticServer } from "../support/static-server.ts";
import { HOSTS, labOrReason, setDnsMode, startContainerStack, stopContainerStack } from "./container-stack.ts";
import { labDocker, theRunnerContainer } from "./lab-docker.ts";
import { platformFindings } from "./platform-findings.ts";
import { startTestHosts, TEST_HOSTS, type TestHosts } from "./test-hosts.ts";

/**
 * Whatever the container's DNS answers, the production path works and still refuses a private
 * destination: Cloudflare's documentation leaves the answers to the platform's outbound
 * configuration, so the sidecar double answers as a platform handing out real public addresses, and
 * as a sandboxing proxy handing out private ones (container-path.test.ts runs everything with
 * upstream's placeholders, 11.0.0.1 / fd00::1). Each mode: URL inputs by name over http and https,
 * an output stored in the service's storage (reached by name), a directory output through the
 * runner's internal name, an output sent to a destination, and a name resolving to loopback refused.
 */
const skipReason = await labOrReason();
const fx = mediaFixtures();
const MODES: { mode: DnsMode; answer: RegExp }[] = [
  { mode: "public", answer: /^192\.31\.196\.(1[2-9]\d|2[0-5]\d)$/ },
  { mode: "private", answer: /^10\.77\.\d+\.\d+$/ },
];

describe.skipIf(skipReason).each(MODES)(
  "the production container path when the container's DNS answers $mode addresses",
  ({ mode, answer }) => {
    let hosts: TestHosts;
    let stack: DevStack;
    let elsewhere: Awaited<ReturnType<typeof startStaticServer>>;
    let api: ReturnType<typeof apiClient>;

    beforeAll(async () => {
      hosts = await startTestHosts(fx.dir);
      elsewhere = await startStaticServer(fx.dir, { host: HOSTS.elsewhere, port: 80 });
      stack = await startContainerStack(hosts, {}, mode);
      api = apiClient(stack.baseUrl, stack.apiKey);
    });
    afterAll(async () => {
      await stopContainerStack(stack);
      setDnsMode("placeholder");
      hosts?.close();
      await elsewhere?.close();
    });

    it("reads inputs by name, stores outputs by name, sends one to a destination; the container saw the mode's answers", async () => {
      const created = await api.call("POST", "/v1/jobs", {
        inputs: {
          video: { type: "url", url: `https://${TEST_HOSTS.media.name}/clip.mp4` },
          music: { type: "url", url: `http://${TEST_HOSTS.cdn.name}/tone.wav` },
        },
        outputs: {
          out: { fileName: "out.mp4" },
          hls: { kind: "directory", fileName: "index.m3u8" },
          sent: { fileName: "sent.wav", destination: { url: `https://${TEST_HOSTS.cdn.name}/put/sent.wav` } },
        },
        ffmpegArgs: [
          "-i",
          "{{video}}",
          "-i",
          "{{music}}",
          "-map",
          "0:v",
          "-map",
          "1:a",
          "-c:v",
          "copy",
          "-c:a",
          "aac",
          "-shortest",
          "{{out}}",
          "-map",
          "0:v",
          "-c:v",
          "copy",
          "-f",
          "hls",
          "-hls_time",
          "1",
          "-hls_playlist_type",
          "vod",
          "{{hls}}",
          "-map",
          "1:a",
          "-c:a",
          "pcm_s16le",
          "{{sent}}",
        ],
      });
      expect(created.status, JSON.stringify(created.body)).toBe(202);
      const job = await api.waitUntil(created.body.id, isFinished, 60_000);
      expect(job, `${job.errorMessage}\n${stack.logs().slice(-3000)}`).toMatchObject({
        status: "completed",
        errorCode: null,
      });
      expect((await fetch(job.outputs.find((o: { label: string }) => o.label === "out").downloadUrl)).status).toBe(200);
      // The playlist and its segments (the video is copied: a segment per keyframe interval).
      expect(job.outputs.find((o: { label: string }) => o.label === "hls").files.length).toBeGreaterThanOrEqual(2);
      expect(hosts.requests(TEST_HOSTS.cdn.name)).toEqual(
        expect.arrayContaining([`https ${TEST_HOSTS.cdn.name} PUT /put/sent.wav`]),
      );

      const container = await theRunnerContainer();
      const lookup = `import { lookup } from "node:dns/promises"; console.log(JSON.stringify(await lookup(process.argv[1], { all: true, family: 4 })));`;
      for (const name of [TEST_HOSTS.media.name, TEST_HOSTS.api.name, "runner-files.ffjobs.internal"]) {
        const seen = JSON.parse(labDocker(["exec", container, "node", "--input-type=module", "-e", lookup, name])) as {
          address: string;
        }[];
        expect(
          seen.map((a) => a.address),
          name,
        ).toEqual([expect.stringMatching(answer)]);
      }
    });

    it("npm run smoke's platform checks read a real container's report as expected: its DNS answers are the mode's, and still reach only the Worker", async () => {
      const { report, findings } = await platformFindings(stack);
      expect(
        findings.filter((f) => f.verdict !== "expected"),
        JSON.stringify(report),
      ).toEqual([]);
      expect(report.egress).toBe("cloudflare");
      for (const lookup of report.dns)
        expect(
          lookup.addresses.filter((a) => a.family === 4).map((a) => a.address),
          lookup.name,
        ).toEqual([expect.stringMatching(answer)]);
      expect(report.connections.map((c) => c.outcome)).toEqual(report.connections.map(() => "worker-refused"));
    });

    it("refuses an input whose name resolves to loopback at the Worker, without reaching it", async () => {
      const created = await api.call("POST", "/v1/jobs", {
        inputs: { a: { type: "url", url: `http://${TEST_HOSTS.sneaky.name}/clip.mp4` } },
        ffmpegArgs: ["-i", "{{a}}", "-f", "null", "-"],
      });
      const job = await api.waitUntil(created.body.id, isFinished);
      expect(job).toMatchObject({ status: "failed", errorCode: "INPUT_FETCH_FAILED", creditsCharged: 0 });
      expect(job.errorMessage).toMatch(
        /egress refused sneaky\.ffjobs-lab\.test: sneaky\.ffjobs-lab\.test resolves to 127\.0\.0\.5/,
      );
      expect(elsewhere.requests).toEqual([]);
    });
  },
);
