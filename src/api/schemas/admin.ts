import { z } from "zod";

/*
 * The operator's routes (`/v1/admin/...`). Their answers' schemas live with what they report: the
 * metrics report in src/metrics/metrics-report.ts, the platform report in src/runner/platform-report.ts.
 */

/** GET /v1/admin/metrics: a period of at most METRICS_RETENTION_DAYS (default: the last 24 h), for one account or all. */
export const metricsQuerySchema = z
  .object({
    since: z.iso
      .datetime({ offset: true })
      .optional()
      .describe("Start of the period (rounded down to the hour); default: 24 h before `until`."),
    until: z.iso
      .datetime({ offset: true })
      .optional()
      .describe("End of the period (rounded up to the hour); default: now."),
    account: z
      .string()
      .regex(/^[A-Za-z0-9_.@-]{1,64}$/)
      .optional()
      .describe("An account's name: only its figures."),
  })
  .strict();
