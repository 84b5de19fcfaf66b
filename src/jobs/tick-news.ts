/** What a waiting event stream learns from a job's coordinator at a tick: whether it was woken, whether the job ended, its latest progress. */
export type TickNews = { woken: boolean; ended: boolean; progress: { progress: unknown; at: string } | null };
