import { dirname, relative } from "node:path";
import { downloadTo, exists, fileInFolder } from "./local-files.ts";
import { isFinished, type FfjobsClient, type Job, type JobRequest } from "../../client/src/index.ts";
import { jobBody, type RemoteCommand } from "./remote-command.ts";
import { CHECK_FAILED_EXIT_CODE, failedChecksLine } from "./output-checks.ts";

/**
 * How often the job is read beside its event stream: a stream that stays open with nothing on it (a
 * proxy that holds it, an event lost) cannot keep the command waiting for a job that has ended.
 */
export const JOB_POLL_BESIDE_STREAM_MS = 10_000;

/** ffmpeg's own exit code when interrupted. */
const INTERRUPTED_EXIT_CODE = 255;
const KiB = 1024;

/**
 * Runs a command on the service as if it ran here: uploads local inputs (with a progress line for
 * large ones), creates the job, shows ffmpeg-like progress from the event stream, downloads the
 * outputs to their paths, prints ffprobe's stdout, and returns the remote exit code. Ctrl-C cancels
 * the remote job.
 */
export async function runRemote(
  client: FfjobsClient,
  cmd: RemoteCommand,
  io = { stdout: process.stdout, stderr: process.stderr },
  /** The job's body once the inputs are uploaded; by default the command as a raw job. */
  bodyFor: (assetIds: Record<string, string>) => JobRequest = (assetIds) => jobBody(cmd, assetIds) as JobRequest,
  pollMs = JOB_POLL_BESIDE_STREAM_MS,
): Promise<number> {
  for (const d of cmd.downloads) {
    if (exists(d.path) && cmd.overwrite !== "yes") return refuseOverwrite(d.path, cmd, io);
  }
  const assetIds: Record<string, string> = {};
  for (const u of cmd.uploads) {
    const asset = await client.uploadFile(u.path, {
      onProgress: (sent, total) =>
        total > 1024 * KiB && io.stderr.write(`\ruploading ${u.path}: ${Math.floor((sent / total) * 100)}%`),
    });
    if ((asset.size ?? 0) > 1024 * KiB) io.stderr.write("\n");
    assetIds[u.name] = asset.id;
  }
  const accepted = await client.createJob(bodyFor(assetIds));
  const interrupt = new AbortController();
  // Ctrl-C cancels the remote job; a second one while that happens changes nothing.
  const onSigint = () => interrupt.abort();
  process.on("SIGINT", onSigint);
  let job: Job | undefined;
  let lastEventId: string | undefined;
  let ended = new AbortController();
  // The job read beside the stream: once it has ended, the stream is let go.
  const pollJob = async () => {
    const read = await client.getJob(accepted.id).catch(() => null);
    if (read && isFinished(read)) {
      job = read;
      ended.abort();
    }
  };
  try {
    // The event stream can drop (a proxy, a network blip): reconnect where it left off until the job ends.
    while (!job || !isFinished(job)) {
      ended = new AbortController();
      const stream = AbortSignal.any([interrupt.signal, ended.signal]);
      const poll = setInterval(() => void pollJob(), pollMs);
      try {
        for await (const e of client.events(accepted.id, { signal: stream, lastEventId })) {
          job = e.job;
          lastEventId = e.id ?? lastEventId;
          if (e.event === "progress" && job.progress) io.stderr.write(`\r${progressLine(job)}`);
        }
      } catch (err) {
        if (interrupt.signal.aborted) throw err;
        if (!ended.signal.aborted) await new Promise((r) => setTimeout(r, 500));
      } finally {
        clearInterval(poll);
      }
      if (!job || !isFinished(job)) job = await client.getJob(accepted.id);
    }
  } catch (err) {
    if (!interrupt.signal.aborted) {
      process.off("SIGINT", onSigint);
      throw err;
    }
    await client.cancelJob(accepted.id).catch(() => {});
    io.stderr.write(`\nExiting normally, received signal 2 (the remote job ${accepted.id} was canceled).\n`);
    return INTERRUPTED_EXIT_CODE;
  }
  process.off("SIGINT", onSigint);
  if (job?.progress || cmd.binary === "ffmpeg") io.stderr.write("\n");
  const result = await client.getResult(accepted.id);
  if (cmd.binary === "ffprobe" && result.stdout) io.stdout.write(result.stdout);
  // Outputs named by their local paths, from the user's folder where they are inside it, in one line.
  const pathOf = (name: string) => {
    const path = cmd.downloads.find((d) => d.name === name)?.path;
    const here = path ? relative(process.cwd(), path) : name;
    return path && here.startsWith("..") ? path : here;
  };
  const missed = failedChecksLine(result.checks, pathOf);
  if (result.errorCode === "OUTPUT_CHECK_FAILED") {
    io.stderr.write(
      `ffjobs: job ${result.id} failed its output checks, nothing was kept: ${missed ?? result.errorMessage}\n`,
    );
    return CHECK_FAILED_EXIT_CODE;
  }
  if (missed) io.stderr.write(`ffjobs: output checks failed (reported; the outputs are kept): ${missed}\n`);
  if (result.status !== "completed") {
    if (result.stderrTail)
      io.stderr.write(result.stderrTail.endsWith("\n") ? result.stderrTail : `${result.stderrTail}\n`);
    io.stderr.write(`ffjobs: job ${result.id} ${result.status}: ${result.errorCode}: ${result.errorMessage}\n`);
    return result.exitCode && result.exitCode > 0 ? result.exitCode : 1;
  }
  for (const d of cmd.downloads) {
    const output = result.outputs.find((o) => o.label === d.name);
    if (!output) {
      io.stderr.write(`ffjobs: the job stored no ${d.path}\n`);
      return 1;
    }
    // A directory output: the main file at the path given (a pattern names none: all files then), every
    // other file beside it under the name the server sent, only if it is a plain name (checked for every
    // file before any is written).
    const files = (output.files ?? [{ path: "", downloadUrl: output.downloadUrl }]).map((f) => ({
      url: f.downloadUrl,
      path:
        f.downloadUrl === output.downloadUrl && !d.pattern
          ? d.path
          : fileInFolder(dirname(d.path), f.path, "the output file"),
    }));
    const taken = files.find((f) => f.path !== d.path && exists(f.path));
    if (taken && cmd.overwrite !== "yes") return refuseOverwrite(taken.path, cmd, io);
    for (const f of files) await downloadTo(f.url, f.path);
  }
  return 0;
}

function refuseOverwrite(path: string, cmd: RemoteCommand, io: { stderr: NodeJS.WritableStream }): number {
  io.stderr.write(
    `File '${path}' already exists. ${cmd.overwrite === "no" ? "Not overwriting - exiting" : "Exiting (use -y to overwrite)"}.\n`,
  );
  return 1;
}

/** Like ffmpeg's status line: `frame=   45 time=00:00:01.50 speed=2.1x 42%` (no frame count where the job has none). */
export function progressLine(job: Job): string {
  const p = job.progress!;
  const t = p.outTimeSeconds ?? 0;
  const hoursMinutes = [Math.floor(t / 3600), Math.floor((t % 3600) / 60)]
    .map((n) => String(n).padStart(2, "0"))
    .join(":");
  const hms = `${hoursMinutes}:${(t % 60).toFixed(2).padStart(5, "0")}`;
  const frame = p.frames == null ? "" : `frame=${String(p.frames).padStart(5)} `;
  return `${frame}time=${hms} speed=${p.speed === null ? "N/A" : `${p.speed}x`}${p.percent === null ? "" : ` ${p.percent}%`}   `;
}
