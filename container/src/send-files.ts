import type { RunnerOutcome, RunnerOutput } from "../../src/runner/runner-protocol.ts";
import type { RunResult } from "./run-command.ts";
import { ended } from "./job-ended.ts";
import { summarizeProbe, type ProbeJson } from "./probe.ts";
import type { RunnerSettings } from "./settings.ts";
import { trustedAgent } from "./trust.ts";
import { uploadFile } from "./upload.ts";
import { DestinationRefused, sendToDestination, type DestinationSends } from "./send-to-destination.ts";
import type { OutputStreams } from "./output-streams.ts";
import type { OpenedFile } from "./output-file.ts";
import { rangeSha256 } from "./output-parts-client.ts";
import { throwOnFailedChecks, type OutputVerifier } from "./verify-output.ts";

/** An output's ffprobe JSON (or what stands for it), given the descriptor it was opened through. */
export type OutputProber = (output: RunnerOutput, file: OpenedFile) => Promise<ProbeJson | null>;

/** What storing a job's file outputs needs: how to probe and check them, where to send them, and the job's limits. */
export type FileContext = {
  settings: RunnerSettings;
  ran: RunResult;
  probeOutput: OutputProber;
  verify: OutputVerifier;
  /** false: the job asked only to report failed checks (`onFailedCheck: "report"`). */
  enforceChecks: boolean;
  canceled: AbortSignal;
  allowedPrivateHosts: string[];
  sends: DestinationSends;
  streams: OutputStreams;
};

/**
 * A job's file outputs, opened and their sizes checked, probed and measured against their checks, then
 * stored (the parts sent while the command wrote them completed, else one PUT) or sent to the client's
 * destination: each stored while it is measured (never recorded if the job fails), each destination sent
 * only once every output passed (what a client's storage got cannot be taken back). Their outcomes, or
 * the job's failure.
 */
export async function sendFiles(
  files: { output: RunnerOutput; file: OpenedFile }[],
  ctx: FileContext,
): Promise<RunnerOutcome["outputs"]> {
  const { settings, ran, canceled, streams } = ctx;
  for (const {
    output,
    file: { size },
  } of files) {
    // ffmpeg exits 0 with "Output file is empty, nothing was encoded" (a seek past the end, a stream that was not there).
    if (size === 0)
      throw ended(
        "OUTPUT_EMPTY",
        `Output "${output.name}" (${output.fileName}) is empty: the command encoded nothing into it (a start past the input's end, or a stream the input lacks?)`,
        ran,
      );
    if (size >= settings.maxOutputBytes) {
      throw ended(
        "LIMIT_EXCEEDED",
        `Output "${output.name}" reached the ${settings.maxOutputBytes}-byte limit and was cut short`,
        ran,
      );
    }
  }
  // The probe reads the output by its path, in the job's sandbox and as the job: whatever a link there
  // points at, it reads nothing the job could not read itself (docs/security.md).
  const probed = files.map(({ output, file }) => ctx.probeOutput(output, file));
  const checked = files.map(({ output, file }, i) => probed[i].then((probe) => ctx.verify(output, file, probe)));
  // Whether every output passed: a job that fails by one output's checks publishes none.
  const allPassed = Promise.all(checked).then((all) => all.every((checks) => checks.every((c) => c.passed)));
  allPassed.catch(() => {});
  const stored = await Promise.allSettled(
    files.map(async ({ output, file }, i) => {
      const { size } = file;
      if (output.destination) {
        // The client's storage gets only what the job publishes: nothing there could be taken back.
        const [probe, checks, passed] = await Promise.all([probed[i], checked[i], allPassed]);
        const withheld = ctx.enforceChecks && !passed;
        const sent = withheld
          ? null
          : await sendToDestination(file, output, settings, ctx.allowedPrivateHosts, canceled, ctx.sends).catch(
              (err: unknown) => (err instanceof DestinationRefused ? err : new DestinationRefused("could not be sent")),
            );
        if (sent instanceof DestinationRefused)
          throw ended(
            "OUTPUT_UPLOAD_FAILED",
            `Output "${output.name}" could not be sent to its destination: ${sent.message}`,
            ran,
          );
        return {
          name: output.name,
          size: sent?.size ?? size,
          metadata: summarizeProbe(probe, size),
          checks,
          ...(sent ? { sha256: sent.sha256, delivered: { etag: sent.etag, sha256: sent.sha256 } } : {}),
        };
      }
      // The parts sent while the command wrote it, completed; else the whole file in one PUT. An output
      // that fails its checks is stored all the same, but never recorded: the failed job's stored files
      // are deleted (src/jobs/lifecycle/discard-outputs.ts).
      const store = async () =>
        (await streams.finish(output.name, file)) ??
        (await uploadFile(
          file,
          output.uploadUrl,
          { "content-type": output.contentType },
          trustedAgent(settings.extraCaFile),
          canceled,
        ));
      const [probe, checks, uploaded, sha256] = await Promise.all([
        probed[i],
        checked[i],
        store().catch(() => null),
        rangeSha256(file.handle, 0, size),
      ]);
      if (uploaded === null) throw ended("OUTPUT_UPLOAD_FAILED", `Output "${output.name}" could not be stored`, ran);
      return { name: output.name, size: uploaded, metadata: summarizeProbe(probe, size), checks, sha256 };
    }),
  );
  const failed = stored.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
  const outputs = stored.map((r) => (r as PromiseFulfilledResult<RunnerOutcome["outputs"][number]>).value);
  if (ctx.enforceChecks) throwOnFailedChecks(outputs, ran);
  return outputs;
}
