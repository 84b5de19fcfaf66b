import { mkdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import type { RunnerJobRequest, RunnerJobState, RunnerOutcome, RunnerProgress } from "../../src/runner/runner-protocol.ts";
import { resolvePlaceholders, safeExtension } from "../../src/jobs/placeholders.ts";
import { buildArgv, childEnvironment, explainFailure } from "./command.ts";
import { createProgressParser } from "./progress.ts";
import { ffprobeJson, longestDurationSeconds, summarizeProbe } from "./probe.ts";
import { runProcess } from "./run-process.ts";
import { FetchFailure, safeDownload } from "./safe-fetch.ts";
import { uploadFile } from "./upload.ts";
import type { RunnerSettings } from "./settings.ts";
import type { JobErrorCode } from "../../src/api/error-codes.ts";

export type JobHooks = {
  setState: (s: RunnerJobState) => void;
  setProgress: (p: RunnerProgress) => void;
  /** Called once the process runs, with a function that kills it. */
  onCancelable: (cancel: () => void) => void;
  isCanceled: () => boolean;
};

/** Fetch inputs, run the binary, store declared outputs, clean up. Never throws: failures are outcomes. */
export async function executeJob(req: RunnerJobRequest, settings: RunnerSettings, hooks: JobHooks): Promise<RunnerOutcome> {
  const jobDir = join(settings.workDir, req.jobId);
  const deadline = Date.now() + req.timeoutMs;
  const scrub = (text: string) => text.split(jobDir).join("/job");
  const fail = (errorCode: JobErrorCode, errorMessage: string, extra: Partial<RunnerOutcome> = {}): RunnerOutcome => ({
    status: "failed", exitCode: null, runtimeMs: 0, errorCode, errorMessage, stdout: "", stderrTail: "", outputs: [], ...extra,
  });
  try {
    await mkdir(join(jobDir, "in"), { recursive: true });
    await mkdir(join(jobDir, "out"), { recursive: true });
    const paths = new Map<string, string>();
    const inputPaths: string[] = [];
    hooks.setState("fetching");
    for (const input of req.inputs) {
      const ext = safeExtension(input.trusted ? input.fileName : new URL(input.url).pathname);
      const path = join(jobDir, "in", `${input.name}.${ext}`);
      try {
        await safeDownload(input.url, path, {
          allowedPrivateHosts: req.allowedPrivateHosts,
          trusted: input.trusted,
          maxBytes: settings.maxInputBytes,
          timeoutMs: Math.max(1, deadline - Date.now()),
        });
      } catch (err) {
        const why = err instanceof FetchFailure ? err.message : "network error";
        if (err instanceof FetchFailure && err.kind === "timeout" && Date.now() >= deadline) {
          return fail("JOB_TIMEOUT", "The job's time limit ran out while fetching inputs");
        }
        return fail("INPUT_FETCH_FAILED", `Input "${input.name}" could not be fetched: ${why}`);
      }
      paths.set(input.name, path);
      inputPaths.push(path);
    }
    for (const output of req.outputs) {
      const ext = safeExtension(output.fileName, "");
      paths.set(output.name, join(jobDir, "out", ext ? `${output.name}.${ext}` : output.name));
    }
    if (hooks.isCanceled()) return { ...fail("CANCELED", "The job was canceled"), status: "canceled" };

    const env = childEnvironment(jobDir);
    const duration = req.binary === "ffmpeg" ? await longestDurationSeconds(inputPaths, env) : null;
    const args = buildArgv(req.binary, resolvePlaceholders(req.args, (name) => paths.get(name)));
    hooks.setState("running");
    const proc = runProcess({
      file: req.binary,
      args,
      cwd: jobDir,
      env,
      timeoutMs: Math.max(1, deadline - Date.now()),
      maxStdoutBytes: settings.maxStdoutBytes,
      maxStderrBytes: settings.maxStderrBytes,
      onProgressText: createProgressParser(duration, hooks.setProgress),
    });
    hooks.onCancelable(proc.cancel);
    const r = await proc.done;
    const ran = { exitCode: r.exitCode, runtimeMs: r.runtimeMs, stdout: scrub(r.stdout), stderrTail: scrub(r.stderrTail) };
    if (r.canceled) return { ...fail("CANCELED", "The job was canceled", ran), status: "canceled" };
    if (r.timedOut) return fail("JOB_TIMEOUT", `The job ran past its ${Math.round(req.timeoutMs / 1000)} s limit and was stopped`, ran);
    if (r.exitCode !== 0) {
      const reason = explainFailure(ran.stderrTail);
      const code = r.exitCode === null ? `signal ${r.signal}` : `code ${r.exitCode}`;
      return fail("PROCESS_FAILED", `${req.binary} exited with ${code}${reason ? `: ${reason}` : ""}`, ran);
    }

    hooks.setState("uploading");
    const outputs: RunnerOutcome["outputs"] = [];
    for (const output of req.outputs) {
      const path = paths.get(output.name)!;
      const exists = await stat(path).then((s) => s.isFile(), () => false);
      if (!exists) return fail("OUTPUT_MISSING", `The command did not write output "${output.name}" (${output.fileName})`, ran);
      const metadata = summarizeProbe(await ffprobeJson(path, env), (await stat(path)).size);
      try {
        const size = await uploadFile(path, output.uploadUrl, output.contentType);
        outputs.push({ name: output.name, size, metadata });
      } catch {
        return fail("OUTPUT_UPLOAD_FAILED", `Output "${output.name}" could not be stored`, ran);
      }
    }
    return { status: "completed", errorCode: null, errorMessage: null, outputs, ...ran };
  } catch (err) {
    console.error(`job ${req.jobId}: unexpected runner error`, err);
    return fail("INTERNAL", "The runner failed unexpectedly");
  } finally {
    await rm(jobDir, { recursive: true, force: true });
  }
}
