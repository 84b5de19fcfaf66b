import { describe, expect, it } from "vitest";
import { ANALYTICS_ENGINE_LIMITS, analyticsEngineSink, jobDataPoint } from "../../src/metrics/analytics-engine.ts";
import type { FinishedJobFacts } from "../../src/metrics/metric-rows.ts";

describe("the Analytics Engine data points", () => {
  const facts: FinishedJobFacts = {
    accountId: crypto.randomUUID(),
    status: "failed",
    errorCode: "PROCESS_FAILED",
    createdAt: "2026-11-25T09:00:00.000Z",
    startedAt: "2026-11-25T09:00:00.250Z",
    finishedAt: "2026-11-25T09:00:02.250Z",
    credits: 2,
    bytesIn: 1000,
    bytesOut: 0,
    containerStart: "warm",
  };

  it("lay a job out as docs/deploy.md's Metrics section says", () => {
    expect(jobDataPoint(facts)).toEqual({
      indexes: [facts.accountId],
      blobs: ["job", "failed", "PROCESS_FAILED", "warm"],
      doubles: [250, 2000, 2, 1000, 0],
    });
  });

  it("refuse what Analytics Engine refuses (an index over 96 bytes), and stop at 250 points per invocation", () => {
    expect(() => jobDataPoint({ ...facts, accountId: "x".repeat(ANALYTICS_ENGINE_LIMITS.indexBytes + 1) })).toThrow(
      /index over 96 bytes/,
    );
    const written: AnalyticsEngineDataPoint[] = [];
    const sink = analyticsEngineSink({ writeDataPoint: (p?: AnalyticsEngineDataPoint) => void written.push(p!) });
    for (let i = 0; i < 300; i++) sink.jobEnded(facts);
    expect(written).toHaveLength(250);
  });
});
