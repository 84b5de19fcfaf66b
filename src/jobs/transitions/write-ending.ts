import type { JobEnding } from "../lifecycle/job-endings.ts";
import { JOB_COLUMN_MAX_BYTES, storedEnding } from "../store/row-budget.ts";
import { boundedJson } from "../store/stored-bytes.ts";
import { storedChecks } from "../checks/stored-checks.ts";
import { ENDING_TRANSITIONS, statusGuard } from "./job-states.ts";

/**
 * complete, fail, cancel or reject: moves a job to the terminal status of its `ending` and charges its
 * account, atomically and at most once. The status guard makes a late or duplicate ending change
 * nothing, and `charge_applied` makes the debit idempotent. `alongside` statements join the same batch
 * (the webhook outbox row, a completed job's outputs); their results come back.
 */
export async function writeEnding(
  db: D1Database,
  id: string,
  ending: JobEnding,
  now: string,
  alongside: D1PreparedStatement[] = [],
): Promise<{ moved: boolean; alongside: D1Result[] }> {
  const guard = statusGuard(ENDING_TRANSITIONS[ending.status]);
  // What the runner reported, cut to the row's shares (src/jobs/store/row-budget.ts): D1 refuses a larger row.
  const e = storedEnding(ending);
  const max = JOB_COLUMN_MAX_BYTES;
  const [update, , , ...rest] = await db.batch([
    db
      .prepare(
        `UPDATE jobs SET status = ?2, exit_code = ?3, runtime_seconds = ?4, credits_charged = ?5, error_code = ?6,
           error_message = ?7, stdout = ?8, stderr_tail = ?9, finished_at = ?10, updated_at = ?10, timings_json = ?11,
           failed_step = ?12, planned_args_json = ?13, input_reads_json = ?14, checks_json = ?15, preset_report_json = ?16, started_at = COALESCE(started_at, CASE WHEN ?4 > 0 THEN ?10 END)
         WHERE id = ?1 AND ${guard}`,
      )
      .bind(
        id,
        e.status,
        e.exitCode,
        e.runtimeSeconds,
        e.creditsCharged,
        e.errorCode,
        e.errorMessage,
        e.stdout,
        e.stderrTail,
        now,
        boundedJson(e.timings, max.timings_json),
        e.failedStep ?? null,
        boundedJson(e.plannedArgs, max.planned_args_json),
        boundedJson(e.inputReads, max.input_reads_json),
        storedChecks(e.checks ?? null, max.checks_json),
        boundedJson(e.presetReport, max.preset_report_json),
      ),
    db
      .prepare(
        `UPDATE accounts SET credit_balance = credit_balance - (SELECT credits_charged FROM jobs WHERE id = ?1)
         WHERE credit_balance IS NOT NULL
           AND id = (SELECT account_id FROM jobs WHERE id = ?1 AND charge_applied = 0 AND finished_at IS NOT NULL)`,
      )
      .bind(id),
    db
      .prepare("UPDATE jobs SET charge_applied = 1 WHERE id = ?1 AND charge_applied = 0 AND finished_at IS NOT NULL")
      .bind(id),
    ...alongside,
  ]);
  return { moved: update.meta.changes === 1, alongside: rest };
}
