import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Every change of a job's status is one guarded statement in src/jobs/transitions/, built from the
 * table in job-states.ts. This reads the Worker's source and fails on a status written anywhere else:
 * an UPDATE of the jobs table that sets `status`, or an INSERT into it.
 */
const root = join(import.meta.dirname, "../..");
const TRANSITIONS_DIR = "src/jobs/transitions/";

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

/** The statements in `text` that write a job's status: SQL text from `UPDATE jobs` or `INSERT INTO jobs` to its end. */
function statusWrites(text: string): string[] {
  const statements = text.match(/\b(UPDATE\s+jobs\s+SET|INSERT\s+(OR\s+\w+\s+)?INTO\s+jobs\b)[^`"';]*/gi) ?? [];
  return statements.filter(
    (sql) => /^INSERT/i.test(sql) || /\bSET\b[\s\S]*?\bstatus\s*=/i.test(sql.replace(/\bWHERE\b[\s\S]*$/i, "")),
  );
}

describe("job status writes", () => {
  const writes = sourceFiles("src").map((file) => ({
    file,
    writes: statusWrites(readFileSync(join(root, file), "utf8")),
  }));

  it("happen only in src/jobs/transitions/", () => {
    const elsewhere = writes
      .filter((w) => w.writes.length > 0 && !w.file.startsWith(TRANSITIONS_DIR))
      .map((w) => relative(".", w.file));
    expect(elsewhere).toEqual([]);
  });

  it("are found where they are: each status-changing transition file writes the status", () => {
    const found = writes
      .filter((w) => w.file.startsWith(TRANSITIONS_DIR) && w.writes.length > 0)
      .map((w) => w.file.slice(TRANSITIONS_DIR.length))
      .sort();
    expect(found).toEqual(["insert-job.ts", "mark-started.ts", "requeue-lost-attempt.ts", "write-ending.ts"]);
  });

  it("tells a status write from other updates of the jobs table", () => {
    expect(statusWrites("UPDATE jobs SET status = 'running' WHERE id = ?1")).toHaveLength(1);
    expect(statusWrites("`UPDATE jobs SET exit_code = ?3,\n status = ?2 WHERE id = ?1`")).toHaveLength(1);
    expect(statusWrites("INSERT INTO jobs (id, status) VALUES (?1, 'queued')")).toHaveLength(1);
    expect(statusWrites("UPDATE jobs SET progress_json = ?2 WHERE id = ?1 AND status = 'running'")).toEqual([]);
    expect(statusWrites("UPDATE job_tasks SET status = 'running' WHERE job_id = ?1")).toEqual([]);
  });
});
