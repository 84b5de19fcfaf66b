import type { JobTask, PlannedTask, SplitTaskParams, TaskResult, TaskStatus } from "./split-task.ts";
import { JOB_COLUMN_MAX_BYTES } from "../store/row-budget.ts";
import { headBytes } from "../store/stored-bytes.ts";

/*
 * A split job's tasks in D1 (migrations/0016_job_tasks.sql). pending → running (handed to a runner,
 * under a runner id of its own) → completed | failed; a lost attempt goes back to pending. Each change
 * is one UPDATE whose WHERE clause names the state and the attempt's runner id, so a late tick or a
 * duplicate report changes nothing.
 */

type TaskRow = {
  name: string;
  needs_json: string;
  params_json: string;
  status: TaskStatus;
  runner_id: string | null;
  attempts: number;
  runtime_ms: number;
  result_json: string | null;
  error_message: string | null;
  started_at: string | null;
  finished_at: string | null;
};

/** The plan, written once: a second writer (a tick that planned twice) inserts nothing. */
export async function insertTasks(db: D1Database, jobId: string, tasks: PlannedTask[]): Promise<void> {
  const insert = db.prepare(
    "INSERT OR IGNORE INTO job_tasks (job_id, name, needs_json, params_json, status) VALUES (?1, ?2, ?3, ?4, 'pending')",
  );
  await db.batch(tasks.map((t) => insert.bind(jobId, t.name, JSON.stringify(t.needs), JSON.stringify(t.params))));
}

export async function listTasks(db: D1Database, jobId: string): Promise<JobTask[]> {
  const { results } = await db
    .prepare("SELECT * FROM job_tasks WHERE job_id = ?1 ORDER BY rowid")
    .bind(jobId)
    .all<TaskRow>();
  return results.map((r) => ({
    name: r.name,
    needs: JSON.parse(r.needs_json) as string[],
    params: JSON.parse(r.params_json) as SplitTaskParams,
    status: r.status,
    runnerId: r.runner_id,
    attempts: r.attempts,
    runtimeMs: r.runtime_ms,
    result: r.result_json ? (JSON.parse(r.result_json) as TaskResult) : null,
    errorMessage: r.error_message,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
  }));
}

async function changed(statement: D1PreparedStatement): Promise<boolean> {
  return (await statement.run()).meta.changes === 1;
}

/**
 * pending → running as attempt `attempts + 1` under a fresh runner id, while its job runs: a tick that
 * hands out tasks as a cancel ends the job (its tasks listed before this claim) starts none it would leave
 * running.
 */
export function claimTask(
  db: D1Database,
  jobId: string,
  task: JobTask,
  runnerId: string,
  now: string,
): Promise<boolean> {
  return changed(
    db
      .prepare(
        `UPDATE job_tasks SET status = 'running', runner_id = ?3, attempts = attempts + 1, started_at = ?5
         WHERE job_id = ?1 AND name = ?2 AND status = 'pending' AND attempts = ?4
           AND EXISTS (SELECT 1 FROM jobs WHERE id = ?1 AND status = 'running')`,
      )
      .bind(jobId, task.name, runnerId, task.attempts, now),
  );
}

/** The runner had no room for it: that was no attempt. */
export function unclaimTask(db: D1Database, jobId: string, name: string, runnerId: string): Promise<boolean> {
  return changed(
    db
      .prepare(
        "UPDATE job_tasks SET status = 'pending', runner_id = NULL, attempts = attempts - 1, started_at = NULL WHERE job_id = ?1 AND name = ?2 AND status = 'running' AND runner_id = ?3",
      )
      .bind(jobId, name, runnerId),
  );
}

/** The attempt was lost (its runner died, forgot it, or could not be reached): back in line, nothing billed. */
export function loseTask(db: D1Database, jobId: string, name: string, runnerId: string): Promise<boolean> {
  return changed(
    db
      .prepare(
        "UPDATE job_tasks SET status = 'pending', runner_id = NULL, started_at = NULL WHERE job_id = ?1 AND name = ?2 AND status = 'running' AND runner_id = ?3",
      )
      .bind(jobId, name, runnerId),
  );
}

export type TaskEnd = {
  status: "completed" | "failed";
  runtimeMs: number;
  result?: TaskResult;
  errorMessage?: string;
  now: string;
};

/** The attempt ended: completed with its result, or failed with why; its run time is billed either way. */
export function endTask(db: D1Database, jobId: string, name: string, runnerId: string, end: TaskEnd): Promise<boolean> {
  return changed(endTaskStatement(db, jobId, name, runnerId, end));
}

/** endTask as a statement, for the batch that ends the job (the last task's end and the job's are one change). */
export function endTaskStatement(
  db: D1Database,
  jobId: string,
  name: string,
  runnerId: string,
  end: TaskEnd,
): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE job_tasks SET status = ?4, runtime_ms = runtime_ms + ?5, result_json = ?6, error_message = ?7, finished_at = ?8
     WHERE job_id = ?1 AND name = ?2 AND status = 'running' AND runner_id = ?3`,
    )
    .bind(
      jobId,
      name,
      runnerId,
      end.status,
      Math.max(0, Math.round(end.runtimeMs)),
      end.result ? JSON.stringify(end.result) : null,
      end.errorMessage === undefined ? null : headBytes(end.errorMessage, JOB_COLUMN_MAX_BYTES.error_message),
      end.now,
    );
}

/** Run time of the tasks' binaries, in ms: what a split job is billed for. */
export function tasksRuntimeMs(tasks: JobTask[]): number {
  return tasks.reduce((sum, t) => sum + t.runtimeMs, 0);
}
