import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createAccount, insertQueuedJob } from "./helpers.ts";

/**
 * D1 refuses a row over 2,000,000 bytes ("Maximum string, BLOB or table row size", D1 limits); the
 * local SQLite takes rows several times that. The tests' database (test/worker/apply-migrations.ts)
 * and npm run dev's refuse them as D1 does, so a write that would fail in production fails here.
 */
const D1_WORDS = "D1_ERROR: string or blob too big: SQLITE_TOOBIG";

describe("rows over D1's 2,000,000 bytes", () => {
  it("are refused, whatever makes them large: one value, or several that are each small enough", async () => {
    const { accountId } = await createAccount();
    const id = await insertQueuedJob(accountId);
    const set = (column: "stdout" | "stderr_tail" | "error_message", value: string) =>
      env.DB.prepare(`UPDATE jobs SET ${column} = ?2 WHERE id = ?1`).bind(id, value).run();
    await set("stdout", "x".repeat(1_999_000));
    await expect(set("stdout", "x".repeat(2_000_001))).rejects.toThrow(/string or blob too big/);
    // Bytes, not characters: 700,000 euro signs are 2,100,000 bytes.
    await expect(set("stdout", "€".repeat(700_000))).rejects.toThrow(/string or blob too big/);
    await set("stdout", "x".repeat(1_000_000));
    await set("stderr_tail", "y".repeat(900_000));
    // Each of these is small; the row they would make is not.
    await expect(set("error_message", "z".repeat(120_000))).rejects.toThrow(/string or blob too big/);
    const row = await env.DB.prepare(
      "SELECT length(stdout) AS o, length(stderr_tail) AS e, error_message FROM jobs WHERE id = ?1",
    )
      .bind(id)
      .first();
    expect(row).toEqual({ o: 1_000_000, e: 900_000, error_message: null });
  });

  it("are refused on insert too, in D1's words through the binding the service uses", async () => {
    const { counted } = await import("../../src/platform/invocation.ts");
    const db = counted(env).DB;
    const insert = (name: string) =>
      db
        .prepare("INSERT INTO accounts (id, name, credit_balance, created_at) VALUES (?1, ?2, NULL, ?3)")
        .bind(crypto.randomUUID(), name, new Date().toISOString())
        .run();
    await expect(insert("n".repeat(2_000_000))).rejects.toThrow(D1_WORDS);
    await insert(`${crypto.randomUUID()}${"n".repeat(1_999_000)}`);
  });

  it("are refused in every table the migrations make", async () => {
    const tables = await env.DB.prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'",
    ).all<{ name: string }>();
    const triggers = await env.DB.prepare(
      "SELECT tbl_name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'd1_row_size_%'",
    ).all<{ tbl_name: string }>();
    const guarded = triggers.results.map((t) => t.tbl_name);
    for (const { name } of tables.results)
      expect(
        guarded.filter((t) => t === name),
        name,
      ).toHaveLength(2);
  });
});
