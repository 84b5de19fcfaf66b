import { spawn } from "node:child_process";
import { createHeadBuffer, createTailBuffer } from "./bounded-text.ts";

export type ProcessResult = {
  exitCode: number | null;
  signal: string | null;
  runtimeMs: number;
  stdout: string;
  stderrTail: string;
  timedOut: boolean;
  canceled: boolean;
};

export type ProcessSpec = {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  maxStdoutBytes: number;
  maxStderrBytes: number;
  /** Each chunk of stdout as it comes (beside the kept head): a stream too long to keep, read as it runs. */
  onStdoutText?: (text: string) => void;
  /** Each chunk of stderr as it comes (beside the kept tail): a log read whole, however long. */
  onStderrText?: (text: string) => void;
  /** ffmpeg writes `-progress` here (fd 3), apart from stdout and stderr. */
  onProgressText?: (text: string) => void;
  /**
   * Runs once the first process exits, before the result: ends whatever it left behind outside its
   * process group (the uid fallback's uid-reaper.ts), which may also hold its pipes open.
   */
  afterExit?: () => Promise<void>;
};

export type RunningProcess = { done: Promise<ProcessResult>; cancel: () => void; pid: number | undefined };

/**
 * Runs a binary in its own process group, so a timeout or cancel kills everything it started.
 * The wall clock is enforced here, not by the binary.
 */
export function runProcess(spec: ProcessSpec, now: () => number = Date.now): RunningProcess {
  const startedAt = now();
  const child = spawn(spec.file, spec.args, {
    cwd: spec.cwd,
    env: spec.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe", "pipe"],
  });
  const stdout = createHeadBuffer(spec.maxStdoutBytes);
  const stderr = createTailBuffer(spec.maxStderrBytes);
  child.stdout?.on("data", (c: Buffer) => {
    stdout.push(c);
    spec.onStdoutText?.(c.toString("latin1"));
  });
  child.stderr?.on("data", (c: Buffer) => {
    stderr.push(c);
    spec.onStderrText?.(c.toString("utf8"));
  });
  const progressStream = child.stdio[3];
  if (progressStream && "on" in progressStream) {
    progressStream.on("data", (c: Buffer) => spec.onProgressText?.(c.toString("utf8")));
    progressStream.on("error", () => {});
  }

  let timedOut = false;
  let canceled = false;
  const killGroup = () => {
    try {
      if (child.pid) process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup();
  }, spec.timeoutMs);

  const cleanedUp = new Promise<void>((resolve) => {
    const after = () =>
      void (spec.afterExit ?? (async () => {}))()
        .catch((err) => console.error("cleanup after a process failed", err))
        .finally(resolve);
    child.once("exit", after);
    child.once("error", after);
  });
  const done = new Promise<ProcessResult>((resolve) => {
    let spawnError: Error | null = null;
    child.on("error", (err) => {
      spawnError = err;
    });
    child.on("close", async (code, signal) => {
      clearTimeout(timer);
      await cleanedUp;
      resolve({
        exitCode: code,
        signal,
        runtimeMs: now() - startedAt,
        stdout: stdout.text(),
        stderrTail: spawnError ? `could not start ${spec.file}: ${spawnError.message}` : stderr.text(),
        timedOut,
        canceled,
      });
    });
  });
  return {
    done,
    pid: child.pid,
    cancel: () => {
      canceled = true;
      killGroup();
    },
  };
}
