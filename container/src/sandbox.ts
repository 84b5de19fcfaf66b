import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { STREAMED_INPUT_PORT } from "../../src/jobs/runner-request/job-paths.ts";

export type Limits = {
  cpuSeconds: number;
  addressSpaceBytes: number;
  fileSizeBytes: number;
  openFiles: number;
  processes: number;
};

/** Paths ffmpeg needs from the host, read-only: Debian's ffmpeg links through /etc/alternatives. */
const READ_ONLY_HOST_PATHS = ["/usr", "/etc/ld.so.cache", "/etc/alternatives", "/etc/fonts"];
const SANDBOX_TMP_BYTES = 64 * 1024 * 1024;
/** The unprivileged user ffmpeg runs as inside the sandbox. */
const NOBODY = "65534";
/** Carries ffmpeg's reads of streamed inputs from the sandbox's loopback to the runner (input-server.ts). */
export const INPUT_RELAY = resolve(import.meta.dirname, "../bin/input-relay.pl");
/** The relay runs on Perl (perl-base: Essential in Debian, so on every host and image). */
export const PERL = "/usr/bin/perl";

/**
 * The command that runs ffmpeg/ffprobe sandboxed: prlimit sets the resource limits, bubblewrap
 * unshares every namespace (so no network at all), shows only /usr and the job folder (inputs
 * read-only at /job/in, outputs at /job/out, the work folder at /job/work), drops all capabilities and runs as nobody. The
 * environment is empty: bwrap is spawned with none, so even /proc/1/environ inside shows nothing.
 * With streamed inputs (`inputSocketDir`), the input relay runs first, as the sandbox's pid 1: it
 * listens on the namespace's own loopback, carries each connection to the runner's input socket
 * (bound at /job/io), and runs the binary.
 */
export function sandboxedCommand(
  binary: string,
  argv: string[],
  jobDir: string,
  limits: Limits,
  bwrapPath: string,
  inputSocketDir: string | null = null,
): { file: string; args: string[] } {
  const binds = READ_ONLY_HOST_PATHS.filter((p) => existsSync(p)).flatMap((p) => ["--ro-bind", p, p]);
  const relay =
    inputSocketDir === null ? [] : ["--bind", inputSocketDir, "/job/io", "--ro-bind", INPUT_RELAY, "/job/relay.pl"];
  const command =
    inputSocketDir === null ? [] : [PERL, "/job/relay.pl", "/job/io/in.sock", String(STREAMED_INPUT_PORT)];
  return {
    file: "/usr/bin/prlimit",
    args: [
      ...prlimitArgs(limits),
      "--",
      bwrapPath,
      "--unshare-all",
      "--unshare-user",
      "--disable-userns",
      "--die-with-parent",
      "--new-session",
      "--as-pid-1",
      "--cap-drop",
      "ALL",
      "--uid",
      NOBODY,
      "--gid",
      NOBODY,
      "--clearenv",
      "--setenv",
      "PATH",
      "/usr/bin:/bin",
      "--setenv",
      "HOME",
      "/job",
      "--setenv",
      "LANG",
      "C.UTF-8",
      ...binds,
      "--symlink",
      "usr/lib",
      "/lib",
      "--symlink",
      "usr/lib64",
      "/lib64",
      "--symlink",
      "usr/bin",
      "/bin",
      "--symlink",
      "usr/sbin",
      "/sbin",
      "--proc",
      "/proc",
      "--dev",
      "/dev",
      "--size",
      String(SANDBOX_TMP_BYTES),
      "--tmpfs",
      "/tmp",
      "--size",
      String(SANDBOX_TMP_BYTES),
      "--tmpfs",
      "/job",
      "--ro-bind",
      `${jobDir}/in`,
      "/job/in",
      "--bind",
      `${jobDir}/out`,
      "/job/out",
      "--bind",
      `${jobDir}/work`,
      "/job/work",
      ...relay,
      "--chdir",
      "/job/work",
      "--",
      ...command,
      `/usr/bin/${binary}`,
      ...argv,
    ],
  };
}

/** Without the sandbox (RUNNER_SANDBOX=off) the limits still apply where prlimit exists. */
export function limitedCommand(binary: string, argv: string[], limits: Limits): { file: string; args: string[] } {
  if (!existsSync("/usr/bin/prlimit")) return { file: binary, args: argv };
  return { file: "/usr/bin/prlimit", args: [...prlimitArgs(limits), "--", binary, ...argv] };
}

export function prlimitArgs(l: Limits): string[] {
  return [
    `--cpu=${l.cpuSeconds}`,
    `--as=${l.addressSpaceBytes}`,
    `--fsize=${l.fileSizeBytes}`,
    `--nofile=${l.openFiles}`,
    `--nproc=${l.processes}`,
  ];
}

/**
 * Whether bubblewrap can start here (Docker's default seccomp profile, for one, stops it), as the
 * account the runner will run as (`as`: it probes before dropping root).
 */
export function sandboxWorks(
  bwrapPath: string,
  as: { uid: number; gid: number } | null = null,
): { ok: boolean; reason: string | null } {
  const probe = spawnSync(
    bwrapPath,
    [
      "--unshare-all",
      "--unshare-user",
      "--disable-userns",
      "--die-with-parent",
      "--ro-bind",
      "/usr",
      "/usr",
      "--symlink",
      "usr/lib",
      "/lib",
      "--symlink",
      "usr/lib64",
      "/lib64",
      "--symlink",
      "usr/bin",
      "/bin",
      "--",
      "/usr/bin/true",
    ],
    { env: {}, encoding: "utf8", timeout: 10_000, ...(as ?? {}) },
  );
  if (probe.error) return { ok: false, reason: `bwrap could not be run: ${probe.error.message}` };
  return probe.status === 0
    ? { ok: true, reason: null }
    : { ok: false, reason: (probe.stderr || `bwrap exited ${probe.status}`).trim() };
}
