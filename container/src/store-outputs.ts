import { stat } from "node:fs/promises";
import type { RunnerJobRequest, RunnerOutcome, RunnerOutput } from "../../src/runner/runner-protocol.ts";
import type { RunResult } from "./run-command.ts";
import type { JobFolder } from "./job-folder.ts";
import { ended } from "./job-ended.ts";
import { createProber, summarizeProbe, type Prober } from "./probe.ts";
import { storeDirectory } from "./store-directory.ts";
import type { RunnerSettings } from "./settings.ts";
import { trustedAgent } from "./trust.ts";
import { uploadFile } from "./upload.ts";
import { DestinationRefused, sendToDestination } from "./send-to-destination.ts";

/**
 * Checks every declared file output first (a missing or cut-short one fails the job before anything
 * is stored), then uploads and probes them all at once: each output's probe runs while it uploads.
 * An output with a destination goes to the user's own storage instead (send-to-destination.ts).
 * Directory outputs are stored beside them (store-directory.ts).
 */
export async function storeOutputs(req: RunnerJobRequest, folder: JobFolder, settings: RunnerSettings, ran: RunResult, canceled: AbortSignal): Promise<RunnerOutcome["outputs"]> {
  const prober = createProber(folder, settings);
  const stored = await Promise.allSettled([
    storeFiles(req.outputs.filter((o) => o.kind !== "directory"), folder, settings, ran, prober, canceled, req.allowedPrivateHosts),
    Promise.all(req.outputs.filter((o) => o.kind === "directory").map((o) => storeDirectory(o, folder, settings, prober, ran, canceled, req.allowedPrivateHosts))),
  ]);
  // A cancel during the upload ends the job canceled (charged for the run), not as an upload failure.
  if (canceled.aborted) throw ended("CANCELED", "The job was canceled while its outputs were being stored", ran);
  const failed = stored.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
  return stored.flatMap((r) => (r as PromiseFulfilledResult<RunnerOutcome["outputs"]>).value);
}

async function storeFiles(outputs: RunnerOutput[], folder: JobFolder, settings: RunnerSettings, ran: RunResult, prober: Prober, canceled: AbortSignal, allowedPrivateHosts: string[]): Promise<RunnerOutcome["outputs"]> {
  const files = await Promise.all(
    outputs.map(async (output) => {
      const path = folder.hostPath(output.name)!;
      const size = await stat(path).then((s) => (s.isFile() ? s.size : null), () => null);
      if (size === null) throw ended("OUTPUT_MISSING", `The command did not write output "${output.name}" (${output.fileName})`, ran);
      // ffmpeg exits 0 with "Output file is empty, nothing was encoded" (a seek past the end, a stream that was not there).
      if (size === 0) throw ended("OUTPUT_EMPTY", `Output "${output.name}" (${output.fileName}) is empty: the command encoded nothing into it (a start past the input's end, or a stream the input lacks?)`, ran);
      if (size >= settings.maxOutputBytes) {
        throw ended("LIMIT_EXCEEDED", `Output "${output.name}" reached the ${settings.maxOutputBytes}-byte limit and was cut short`, ran);
      }
      return { output, path, size };
    }),
  );
  const stored = await Promise.allSettled(
    files.map(async ({ output, path, size }) => {
      if (output.destination) {
        const [probe, sent] = await Promise.all([
          prober(output.name),
          sendToDestination(path, output, settings, allowedPrivateHosts, canceled).catch((err: unknown) => (err instanceof DestinationRefused ? err : new DestinationRefused("could not be sent"))),
        ]);
        if (sent instanceof DestinationRefused) throw ended("OUTPUT_UPLOAD_FAILED", `Output "${output.name}" could not be sent to its destination: ${sent.message}`, ran);
        return { name: output.name, size: sent.size, metadata: summarizeProbe(probe, size), delivered: { etag: sent.etag, sha256: sent.sha256 } };
      }
      const [probe, uploaded] = await Promise.all([
        prober(output.name),
        uploadFile(path, output.uploadUrl, { "content-type": output.contentType }, trustedAgent(settings.extraCaFile), canceled).catch(() => null),
      ]);
      if (uploaded === null) throw ended("OUTPUT_UPLOAD_FAILED", `Output "${output.name}" could not be stored`, ran);
      return { name: output.name, size: uploaded, metadata: summarizeProbe(probe, size) };
    }),
  );
  const failed = stored.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
  return stored.map((r) => (r as PromiseFulfilledResult<RunnerOutcome["outputs"][number]>).value);
}
