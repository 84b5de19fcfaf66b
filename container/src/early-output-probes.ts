import { execFile, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { basename, join } from "node:path";
import { inputSafetyOptions } from "../../src/jobs/runner-request/command-line.ts";
import { STREAMED_INPUT_ORIGIN } from "../../src/jobs/runner-request/job-paths.ts";
import type { RunnerJobRequest } from "../../src/runner/runner-protocol.ts";
import type { JobFolder } from "./job-folder.ts";
import type { OpenedFile } from "./output-file.ts";
import { startOutputServer } from "./output-server.ts";
import { readsHeader } from "./png-header-probe.ts";
import {
  parseProbeJson,
  PROBE_JSON_OPTIONS,
  PROBE_LIMITS,
  PROBE_MAX_STDOUT_BYTES,
  PROBE_TIMEOUT_MS,
  type ProbeJson,
} from "./probe.ts";
import { PERL, sandboxedCommand } from "./sandbox.ts";
import type { RunnerSettings } from "./settings.ts";

/**
 * At most this many of a job's file outputs get a probe started beside the command (each is a
 * sandbox, a relay and an ffprobe waiting); the others are probed after it, by path, as before.
 */
const MAX_EARLY_PROBES = 4;
/**
 * Stopping probes that were never released: how long they get to exit by themselves once the server is
 * gone (each then reads a refused connection and exits), before they are killed. Never killed at once:
 * a sandbox killed while bubblewrap sets it up can be left waiting for good.
 */
const EXIT_GRACE_MS = 2_000;
/** And how long, after the kill, their sandboxes get to let go of their output pipes. */
const KILLED_EXIT_MS = 3_000;

/**
 * What an output's early probe found: its JSON (null when ffprobe found nothing), or `stopped` when it
 * was stopped (its time ran out, or the job was canceled): then nothing more is asked of the output.
 */
export type EarlyProbeAnswer = ProbeJson | null | "stopped";

export type EarlyProbes = {
  /**
   * Lets the output's waiting probe read it through `file` and answers what it found; undefined when the
   * output has no early probe. A cancel stops it.
   */
  probe: (name: string, file: OpenedFile, canceled: AbortSignal) => Promise<EarlyProbeAnswer> | undefined;
  /** Stops every probe not yet answered (the command failed, or the job ends). */
  close: () => Promise<void>;
};

const NONE: EarlyProbes = { probe: () => undefined, close: async () => {} };

/**
 * Starts, beside the job's command, one sandboxed ffprobe per file output (up to MAX_EARLY_PROBES),
 * each asking for its output over the sandbox's relay (output-server.ts holds the request until the
 * command is done). An output's probe costs ffprobe's start-up (~100 ms of CPU: 215 shared libraries
 * bound at start) whenever it runs; started here, that time passes while the command runs instead of
 * after it, between the command's exit and the job's end. Only under bubblewrap, where a sandbox has a
 * network of its own for the relay; elsewhere, or if the server cannot start, outputs are probed by path
 * after the command. The server's socket is in the job's folder (outside what its sandboxes see), so a
 * runner that dies leaves nothing the next one does not remove with the folder.
 */
export async function startEarlyProbes(
  req: RunnerJobRequest,
  folder: JobFolder,
  settings: RunnerSettings,
): Promise<EarlyProbes> {
  // The output's own file name, extension included: ffprobe chooses some formats by it (image2 for .jpg).
  const fileNameOf = (name: string) => basename(folder.hostPath(name)!);
  const pathOf = (name: string) => `/out/${fileNameOf(name)}`;
  // A still PNG is read from its header after the command (png-header-probe.ts): no ffprobe for it here.
  const names = req.outputs
    .filter((o) => o.kind !== "directory" && !readsHeader(fileNameOf(o.name)))
    .slice(0, MAX_EARLY_PROBES)
    .map((o) => o.name);
  if (settings.isolation !== "namespaces" || !existsSync(PERL) || names.length === 0) return NONE;
  const server = await startOutputServer(names.map(pathOf), join(folder.root, OUTPUT_SERVER_FOLDER)).catch(
    (err: unknown) => {
      console.error(`job ${req.jobId}: outputs will be probed after the command: ${String(err).slice(0, 200)}`);
      return null;
    },
  );
  if (!server) return NONE;
  const probes = new Map(names.map((name) => [name, spawnProbe(`${STREAMED_INPUT_ORIGIN}${pathOf(name)}`)]));

  function spawnProbe(url: string) {
    const argv = ["-v", "error", ...inputSafetyOptions(url), ...PROBE_JSON_OPTIONS, url];
    const limits = { ...PROBE_LIMITS, addressSpaceBytes: settings.maxMemoryBytes };
    const command = sandboxedCommand("ffprobe", argv, folder.root, limits, settings.bwrapPath, server!.socketDir);
    let child: ChildProcess;
    let stopped = false;
    const answer = new Promise<EarlyProbeAnswer>((resolve) => {
      child = execFile(command.file, command.args, { env: {}, maxBuffer: PROBE_MAX_STDOUT_BYTES }, (err, stdout) =>
        resolve(stopped ? "stopped" : err ? null : parseProbeJson(stdout)),
      );
    });
    const stop = () => {
      stopped = true;
      child.kill("SIGKILL");
    };
    return { answer, stop };
  }

  return {
    probe(name, file, canceled) {
      const probe = probes.get(name);
      if (!probe) return undefined;
      server.release(pathOf(name), file);
      // Its time runs from now: until now it waited on the command, however long that ran.
      const timer = setTimeout(probe.stop, PROBE_TIMEOUT_MS);
      if (canceled.aborted) probe.stop();
      else canceled.addEventListener("abort", probe.stop, { once: true });
      return probe.answer.finally(() => {
        clearTimeout(timer);
        canceled.removeEventListener("abort", probe.stop);
      });
    },
    async close() {
      await server.close();
      const answered = Promise.all([...probes.values()].map((p) => p.answer));
      if (await within(answered, EXIT_GRACE_MS)) return;
      for (const probe of probes.values()) probe.stop();
      await within(answered, KILLED_EXIT_MS);
    },
  };
}

/** The output server's folder inside the job's folder: none of the job's sandboxes binds it. */
const OUTPUT_SERVER_FOLDER = "probe-io";

/** Whether `p` settled within `ms`. */
function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    p.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}
