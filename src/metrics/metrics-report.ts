import { z } from "zod";

/** What GET /v1/admin/metrics answers (the one source of its type and of its OpenAPI schema). */
const count = z.number().int().nonnegative();
const ms = z.number().int().nonnegative().nullable();

export const distributionSchema = z
  .object({
    count,
    meanMs: ms,
    p50Ms: ms,
    p90Ms: ms,
    p99Ms: ms,
  })
  .describe(
    "Durations in ms: percentiles from a histogram whose buckets are 9 % wide (exact to within 9 %); null without values.",
  );

export const metricsReportSchema = z.object({
  since: z.string().describe("Start of the period (inclusive), on the hour."),
  until: z.string().describe("End of the period (exclusive), on the hour."),
  granularity: z.enum(["hour", "day"]).describe("Of `series`: hours for periods up to 8 days, else days."),
  account: z.string().nullable().describe("The account the figures are limited to; null for all."),
  jobs: z.record(z.string(), count).describe("Finished jobs by terminal status."),
  errors: z.record(z.string(), count).describe("Failed, canceled and rejected jobs by error code."),
  queueWaitMs: distributionSchema.describe("Created → started, of jobs that started."),
  runMs: distributionSchema.describe("Started → finished."),
  containerStarts: z
    .object({ cold: count, warm: count })
    .describe("Jobs whose container had to start, or was already running (production; none with a local runner)."),
  bytesIn: count.describe("Bytes fetched from inputs' origins."),
  bytesOut: count.describe("Bytes of outputs stored or sent to destinations."),
  credits: z.number().nonnegative(),
  webhookAttempts: z
    .object({ delivered: count, retrying: count, failed: count })
    .describe("Webhook attempts by outcome: `retrying` failed and will be tried again, `failed` was the last."),
  series: z
    .array(
      z.object({
        at: z.string().describe("Start of the hour or day."),
        jobs: z.record(z.string(), count),
        credits: z.number().nonnegative(),
        queueWaitP50Ms: ms,
        queueWaitP90Ms: ms,
        runP50Ms: ms,
        runP90Ms: ms,
      }),
    )
    .describe("One entry per hour or day of the period, empty ones included."),
  accounts: z
    .array(
      z.object({
        account: z.string(),
        jobs: count,
        failed: count,
        credits: z.number().nonnegative(),
        bytesIn: count,
        bytesOut: count,
      }),
    )
    .describe("Per account, most jobs first (at most 100)."),
});
export type MetricsReport = z.infer<typeof metricsReportSchema>;
