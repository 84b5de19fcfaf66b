import { execFile, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { basename } from "node:path";
import { inputSafetyOptions } from "../../src/jobs/runner-request/command-line.ts";
import { STREAMED_INPUT_ORIGIN } from "../../src/jobs/runner-request/job-paths.ts";
import type { RunnerJobRequest } from "../../src/runner/runner-protocol.ts";
import type { JobFolder } from "./job-folder.ts";
import type { OpenedFile } from "./output-file.ts";
import { startOutputServer } from "./output-server.ts";
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
/** How long stopping the probes waits for their sandboxes to exit. */
const CLOSE_WAIT_MS = 5_000;

export type EarlyProbes = {
  /**
   * Lets the output's waiting probe read it through `file` and answers what it found (null when it
   * found nothing); undefined when the output has no early probe.
   */
  probe: (name: string, file: OpenedFile) => Promise<ProbeJson | null> | undefined;
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
 * network of its own for the relay; elsewhere outputs are probed by path after the command.
 */
export async function startEarlyProbes(
  req: RunnerJobRequest,
  folder: JobFolder,
  settings: RunnerSettings,
): Promise<EarlyProbes> {
  const names = req.outputs
    .filter((o) => o.kind !== "directory")
    .slice(0, MAX_EARLY_PROBES)
    .map((o) => o.name);
  if (settings.isolation !== "namespaces" || !existsSync(PERL) || names.length === 0) return NONE;
  // The output's own file name, extension included: ffprobe chooses some formats by it (image2 for .jpg).
  const pathOf = (name: string) => `/out/${basename(folder.hostPath(name)!)}`;
  const server = await startOutputServer(names.map(pathOf));
  const probes = new Map(names.map((name) => [name, spawnProbe(`${STREAMED_INPUT_ORIGIN}${pathOf(name)}`)]));

  function spawnProbe(url: string) {
    const argv = ["-v", "error", ...inputSafetyOptions(url), ...PROBE_JSON_OPTIONS, url];
    const limits = { ...PROBE_LIMITS, addressSpaceBytes: settings.maxMemoryBytes };
    const command = sandboxedCommand("ffprobe", argv, folder.root, limits, settings.bwrapPath, server.socketDir);
    let child: ChildProcess;
    const answer = new Promise<ProbeJson | null>((resolve) => {
      child = execFile(command.file, command.args, { env: {}, maxBuffer: PROBE_MAX_STDOUT_BYTES }, (err, stdout) =>
        resolve(err ? null : parseProbeJson(stdout)),
      );
    });
    return { answer, kill: () => child.kill("SIGKILL") };
  }

  return {
    probe(name, file) {
      const probe = probes.get(name);
      if (!probe) return undefined;
      server.release(pathOf(name), file);
      // Its time runs from now: until now it waited on the command, however long that ran.
      const timer = setTimeout(probe.kill, PROBE_TIMEOUT_MS);
      return probe.answer.finally(() => clearTimeout(timer));
    },
    async close() {
      // The server first: a probe still waiting on its output is answered "not found" and exits, even
      // one whose sandbox outlived the kill below (it was being set up when it came).
      await server.close();
      for (const probe of probes.values()) probe.kill();
      // Each answers once its sandbox has exited and let go of its output pipe; not waited for past a bound.
      const bound = new Promise((done) => setTimeout(done, CLOSE_WAIT_MS).unref());
      await Promise.race([Promise.all([...probes.values()].map((p) => p.answer)), bound]);
    },
  };
}
