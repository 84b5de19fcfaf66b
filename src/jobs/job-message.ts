/** The body of a message on the jobs queue: just the id; the job itself lives in D1. */
export type JobMessage = { jobId: string };
