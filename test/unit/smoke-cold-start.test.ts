import { describe, expect, it } from "vitest";
import { NotReadyYet, untilReady, type Patience } from "../../scripts/smoke/cold-start.ts";
import { makeWav, readWav } from "../../scripts/smoke/wav.ts";

function fakePatience(budgetMs: number, retryEveryMs: number) {
  let now = 0;
  const lines: string[] = [];
  const sleeps: number[] = [];
  const sleep = async (ms: number) => {
    sleeps.push(ms);
    now += ms;
  };
  const p: Patience = { budgetMs, retryEveryMs, log: (l) => lines.push(l), clock: { now: () => now, sleep } };
  return { p, lines, sleeps };
}

describe("the smoke test's cold-start wait", () => {
  it("retries what waiting may cure, says why once, and reports each wait against the bound", async () => {
    const { p, lines, sleeps } = fakePatience(600_000, 15_000);
    let tries = 0;
    const value = await untilReady(
      "ffmpeg job",
      async () => {
        if (++tries < 3) throw new NotReadyYet("job j1 failed RUNNER_UNAVAILABLE");
        return "done";
      },
      0,
      p,
    );
    expect(value).toBe("done");
    expect(sleeps).toEqual([15_000, 15_000]);
    expect(
      lines.filter((l) => l.includes("Cloudflare notes that container requests can fail for several minutes")),
    ).toHaveLength(1);
    expect(
      lines.filter((l) =>
        /ffmpeg job: not ready yet \(job j1 failed RUNNER_UNAVAILABLE\); waited (0 s|15 s) of 10 min/.test(l),
      ),
    ).toHaveLength(2);
  });

  it("gives up within the bound with advice, and never retries any other failure", async () => {
    const { p, sleeps } = fakePatience(60_000, 15_000);
    await expect(
      untilReady(
        "runner",
        async () => {
          throw new NotReadyYet("HTTP 503 RUNNER_UNAVAILABLE");
        },
        0,
        p,
      ),
    ).rejects.toThrow(
      /runner: the service was still not ready after 1 min \(HTTP 503 RUNNER_UNAVAILABLE\)\. If this is a first deploy, try `npm run smoke` again/,
    );
    expect(sleeps.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(60_000);
    const other = fakePatience(60_000, 15_000);
    await expect(
      untilReady(
        "x",
        async () => {
          throw new Error("job j2 failed INVALID_ARGUMENTS");
        },
        0,
        other.p,
      ),
    ).rejects.toThrow("INVALID_ARGUMENTS");
    expect(other.sleeps).toEqual([]);
  });
});

describe("the smoke test's WAV", () => {
  it("is one second of 8 kHz 16-bit mono, and reads back past the chunks ffmpeg adds", () => {
    const wav = makeWav();
    const info = readWav(wav);
    expect({ ...info, data: info.data.length }).toEqual({
      format: 1,
      channels: 1,
      sampleRate: 8000,
      bitsPerSample: 16,
      data: 16000,
    });
    // As ffmpeg writes it: a LIST chunk (odd size, padded) between fmt and data.
    const list = new Uint8Array([..."LIST"].map((c) => c.charCodeAt(0)).concat([5, 0, 0, 0, 1, 2, 3, 4, 5, 0]));
    const withList = new Uint8Array([...wav.subarray(0, 36), ...list, ...wav.subarray(36)]);
    expect(readWav(withList).data).toEqual(info.data);
    expect(() => readWav(new Uint8Array(20))).toThrow(/not a WAV/);
  });
});
