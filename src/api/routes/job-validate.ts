import { createRoute } from "@hono/zod-openapi";
import { HTTPException } from "hono/http-exception";
import { ApiError } from "../api-error.ts";
import { JOB_BODY, resolveJobBody } from "../create-job-validation.ts";
import { operation } from "../operation.ts";
import { errors, json } from "../openapi-responses.ts";
import { prepareJob } from "../prepare-job.ts";
import { validateJobQuerySchema } from "../schemas/jobs.ts";
import { loadConfig } from "../../config.ts";
import { createServices } from "../../services.ts";
import { runnerInputs } from "../../jobs/runner-request/runner-inputs.ts";
import { notYetStoredInputs } from "../../jobs/request/chained-inputs.ts";
import { creditEstimate, dryRunCommands } from "../../jobs/request/dry-run.ts";
import { jobSteps, type JobSpec } from "../../jobs/request/job-request.ts";
import { DEFAULT_MAX_OUTPUT_BYTES, DRY_RUN_PROBE_TIMEOUT_MS } from "../../jobs/request/limits.ts";
import { RunnerBusy } from "../../runner/runner-client.ts";

/** A probe's slot outlives its time limit by this much before it frees itself (a Worker that died holding it). */
const PROBE_LEASE_MARGIN_MS = 15_000;

/**
 * `POST /v1/jobs/validate`: a dry run. Takes a job body and says what creating it would do, creating
 * nothing: `valid: false` with the 400's error and details, or `valid: true` with the command lines
 * the runner would execute; with `?probe=true` also each input's ffprobe summary and a credit
 * estimate (the inputs are fetched and probed by a runner, as a job's would be). Served by jobs.ts.
 */
export const validateJob = operation(
  createRoute({
    method: "post",
    path: "/validate",
    operationId: "validateJob",
    summary:
      "Dry run: what creating this job would do, creating nothing (`?probe=true` also probes the inputs and estimates the credits)",
    request: { query: validateJobQuerySchema, body: JOB_BODY },
    responses: {
      200: json(
        "DryRunResult",
        "The verdict: `valid: false` with the errors creation would give, or the command lines (and probes)",
      ),
      ...errors({ 400: ["INVALID_REQUEST"], 413: ["PAYLOAD_TOO_LARGE"] }),
    },
  }),
  async (c) => {
    const raw: unknown = await c.req.json().catch(() => {
      throw new HTTPException(400, { message: "Malformed JSON in request body" });
    });
    const config = loadConfig(c.env);
    const account = c.get("account");
    let spec: JobSpec;
    try {
      const { job, template } = await resolveJobBody(c.env.DB, account.id, raw);
      ({ spec } = await prepareJob(c.env, config, account.id, job, new URL(c.req.url).origin, template));
    } catch (err) {
      if (err instanceof ApiError && err.code === "INVALID_REQUEST")
        return c.json({ valid: false, error: err.message, details: err.details ?? [] });
      throw err;
    }
    const s = createServices(c.env);
    const inputs = await runnerInputs(s, spec, account.id, { skipMissing: true });
    // Another job's output that is not stored yet: shown where it will be, not probed.
    const notYet = await notYetStoredInputs(s.db, spec, account.id, inputs);
    const verdict = {
      valid: true,
      mode: spec.mode ?? "raw",
      binary: spec.binary,
      commands: dryRunCommands(spec, [...inputs, ...notYet], DEFAULT_MAX_OUTPUT_BYTES),
    };
    const { probe } = c.req.valid("query");
    if (probe !== "true" && probe !== "1") return c.json(verdict);
    // Probes hold a runner and are not billed (docs/api.md): each account gets a small budget of them.
    const limiter = c.env.RATE_LIMITER.get(c.env.RATE_LIMITER.idFromName(`probes:${account.id}`));
    const budget = await limiter.take(config.probeRateLimitPerMinute, "probe");
    if (!budget.allowed) {
      throw new ApiError(
        "RATE_LIMITED",
        `Too many input probes for this account; retry in ${budget.retryAfterSeconds} s (or dry-run without ?probe=true)`,
        {
          headers: { "Retry-After": String(budget.retryAfterSeconds) },
        },
      );
    }
    const probeId = crypto.randomUUID();
    // And a bound on how many run at once, so one account cannot hold every runner's probe slots.
    const slot = await limiter.acquire(
      config.probeConcurrencyPerAccount,
      DRY_RUN_PROBE_TIMEOUT_MS + PROBE_LEASE_MARGIN_MS,
      probeId,
    );
    if (!slot.taken) {
      throw new ApiError(
        "RATE_LIMITED",
        `This account already has ${config.probeConcurrencyPerAccount} input probe(s) running; retry when it ends (or dry-run without ?probe=true)`,
        {
          headers: { "Retry-After": String(slot.retryAfterSeconds) },
        },
      );
    }
    try {
      const probe = await s.runner.probe({
        probeId,
        inputs,
        allowedPrivateHosts: config.allowedPrivateHosts,
        timeoutMs: DRY_RUN_PROBE_TIMEOUT_MS,
      });
      const pending = Object.fromEntries(
        notYet.map((i) => [
          i.name,
          {
            ok: false as const,
            error: "another job's output, not stored yet: it can be probed once that job has completed",
          },
        ]),
      );
      // What a split job's plan reads of an input (split, media) is the service's, not part of the answer.
      const probed = Object.fromEntries(
        Object.entries(probe.inputs).map(([name, r]) => [
          name,
          r.ok ? { ok: true as const, metadata: r.metadata, durationSeconds: r.durationSeconds } : r,
        ]),
      );
      return c.json({
        ...verdict,
        inputs: { ...probed, ...pending },
        estimate: creditEstimate(probe, config.creditsPerSecond, jobSteps(spec).length),
      });
    } catch (err) {
      const busy = err instanceof RunnerBusy;
      console.error(`dry run ${probeId}: probing the inputs failed`, err);
      return c.json({
        ...verdict,
        inputs: null,
        estimate: null,
        probeError: busy ? "the runners are busy: try again shortly" : "no runner could probe the inputs",
      });
    } finally {
      await limiter.release(probeId);
    }
  },
);
