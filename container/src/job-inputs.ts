import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { scanPlaceholders } from "../../src/jobs/request/placeholders.ts";
import type { RunnerJobRequest } from "../../src/runner/runner-protocol.ts";
import { ended, type JobEnded } from "./job-ended.ts";
import type { JobFolder } from "./job-folder.ts";
import { startInputServer, type InputReads } from "./input-server.ts";
import { egressOptions, FetchFailure, safeDownload } from "./safe-fetch.ts";
import type { RunnerSettings } from "./settings.ts";
import { PERL } from "./sandbox.ts";

/** How a job's inputs reach its commands, for as long as the job runs. */
export type JobInputs = {
  /** The first reason an input could not be read as it is: it fails the job, whatever ffmpeg made of it. */
  failure: () => JobEnded | null;
  /** Bytes per input: given to the job's commands, and fetched from the origin. */
  reads: () => InputReads;
  close: () => Promise<void>;
};

/** Whether this runner streams inputs, and in words why (or why not), for its start-up log. */
export function inputStreaming(
  settings: Pick<RunnerSettings, "inputs">,
  isolation: RunnerSettings["isolation"],
): { on: boolean; description: string } {
  const copied = "copied whole before each job";
  if (settings.inputs === "copy") return { on: false, description: `${copied} (RUNNER_INPUTS=copy)` };
  if (isolation !== "namespaces")
    return {
      on: false,
      description: `${copied}: reading by range needs the namespace sandbox (a network namespace of the job's own)`,
    };
  if (!existsSync(PERL))
    return { on: false, description: `${copied}: ${PERL}, which runs the sandbox's input relay, is missing` };
  return { on: true, description: "read by range while each job runs (only the bytes ffmpeg asks for)" };
}

/**
 * The inputs read by range: all of them where this runner streams, except files a filter opens by
 * path (subtitles=, lut3d=, drawtext's fontfile=): filters read local files only, and such files are small.
 */
export function streamedInputNames(req: RunnerJobRequest, settings: Pick<RunnerSettings, "streamInputs">): Set<string> {
  if (!settings.streamInputs) return new Set();
  const inFilters = new Set<string>();
  for (const step of req.steps ?? [{ args: req.args }]) {
    for (const use of scanPlaceholders(step.args).uses) if (!use.whole) inFilters.add(use.name);
  }
  return new Set(req.inputs.map((i) => i.name).filter((n) => !inFilters.has(n)));
}

/**
 * Copies the inputs that are not streamed into the job's folder, all at once (the slowest decides,
 * not the sum; the first failure stops the others), and serves the streamed ones on a socket the
 * sandbox's relay reaches (input-server.ts).
 */
export async function openJobInputs(
  req: RunnerJobRequest,
  folder: JobFolder,
  settings: RunnerSettings,
  deadline: number,
  canceled: AbortSignal,
  streamed: ReadonlySet<string>,
): Promise<JobInputs> {
  const copiedReads = await copyInputs(
    req.inputs.filter((i) => !streamed.has(i.name)),
    folder,
    settings,
    deadline,
    canceled,
    req.allowedPrivateHosts,
  );
  const toStream = req.inputs.filter((i) => streamed.has(i.name));
  if (toStream.length === 0) return { failure: () => null, reads: () => copiedReads, close: async () => {} };
  const streamedInputs = toStream.map((i) => ({
    name: i.name,
    url: i.url,
    trusted: i.trusted,
    path: new URL(folder.visiblePath(i.name)!).pathname,
    copyPath: folder.hostPath(i.name)!,
  }));
  const server = await startInputServer(streamedInputs, {
    fetch: { allowedPrivateHosts: req.allowedPrivateHosts, ...egressOptions(settings) },
    maxInputBytes: settings.maxInputBytes,
    maxCopiedInputBytes: settings.maxCopiedInputBytes,
    maxReadBytes: settings.maxReadBytes,
    originIdleMs: settings.originIdleMs,
    deadline,
    canceled,
  });
  folder.inputSocketDir = dirname(server.socketPath);
  return { failure: server.failure, reads: () => ({ ...copiedReads, ...server.reads() }), close: server.close };
}

async function copyInputs(
  inputs: RunnerJobRequest["inputs"],
  folder: JobFolder,
  settings: RunnerSettings,
  deadline: number,
  canceled: AbortSignal,
  allowedPrivateHosts: string[],
): Promise<InputReads> {
  const stopOthers = new AbortController();
  const reads: InputReads = {};
  const results = await Promise.allSettled(
    inputs.map(async (input) => {
      try {
        const got = await safeDownload(input.url, folder.hostPath(input.name)!, {
          allowedPrivateHosts,
          trusted: input.trusted,
          maxBytes: settings.maxCopiedInputBytes,
          timeoutMs: Math.max(1, deadline - Date.now()),
          signal: AbortSignal.any([canceled, stopOthers.signal]),
          ...egressOptions(settings),
        });
        reads[input.name] = { bytesRead: got.bytes, originBytes: got.bytes, copied: true };
      } catch (err) {
        if (stopOthers.signal.aborted && !canceled.aborted) throw null; // another input failed first
        stopOthers.abort();
        if (canceled.aborted) throw ended("CANCELED", "The job was canceled");
        if (err instanceof FetchFailure && err.kind === "timeout" && Date.now() >= deadline) {
          throw ended("JOB_TIMEOUT", "The job's time limit ran out while fetching inputs");
        }
        throw ended(
          "INPUT_FETCH_FAILED",
          `Input "${input.name}" could not be fetched: ${err instanceof FetchFailure ? err.message : "network error"}`,
        );
      }
    }),
  );
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected" && r.reason !== null);
  if (failed) throw failed.reason;
  return reads;
}
