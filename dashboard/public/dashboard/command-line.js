// A job's command as one line a person can read and paste into a terminal: the binary and its
// arguments, each quoted for a POSIX shell where it needs it (placeholders such as {{video}} stay as
// written); a multi-step job's commands joined with &&. The job's own `GET /v1/jobs/{id}/command`
// gives the runnable script, with inputs fetched and placeholders resolved.

/** One shell word: as is when it is plain, else in single quotes (a quote inside written '\''). */
export const shellWord = (s) => (/^[A-Za-z0-9_./:=@%+,{}-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** The command line of a job view: the planned arguments of a preset job that ran, else as created. */
export function commandLine(job) {
  const steps = job.steps ?? [{ binary: job.binary, ffmpegArgs: job.plannedArgs ?? job.ffmpegArgs }];
  return steps.map((s) => [s.binary, ...s.ffmpegArgs].map(shellWord).join(" ")).join(" && ");
}
