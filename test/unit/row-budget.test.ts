import { describe, expect, it } from "vitest";
import { D1_MAX_ROW_BYTES, recordBytesOfNew, rowSizeTriggerSql } from "../../src/platform/d1-row-size.ts";
import {
  DIRECTORY_FILE_ENTRY_MAX_BYTES,
  JOB_COLUMN_MAX_BYTES,
  JOB_FIXED_COLUMNS_MAX_BYTES,
  MAX_DIRECTORY_FILES_LIMIT,
  OUTPUT_METADATA_MAX_BYTES,
} from "../../src/jobs/store/row-budget.ts";
import {
  MAX_METADATA_ENTRIES,
  MAX_METADATA_KEY_CHARS,
  MAX_METADATA_VALUE_CHARS,
} from "../../src/jobs/request/limits.ts";
import { headBytes, tailBytes, utf8Bytes } from "../../src/jobs/store/stored-bytes.ts";

/** D1 keeps a row to 2,000,000 bytes (src/platform/d1-row-size.ts): the shares of each row that grows must fit in one. */
describe("the rows' byte budgets", () => {
  it("a job's columns, each at its share, fit in one D1 row", () => {
    const total = Object.values(JOB_COLUMN_MAX_BYTES).reduce((a, b) => a + b, 0) + JOB_FIXED_COLUMNS_MAX_BYTES;
    expect(total).toBeLessThanOrEqual(D1_MAX_ROW_BYTES);
  });

  it("the metadata's share holds the schema's largest metadata as JSON (6 bytes a UTF-16 unit at worst: \\u0001)", () => {
    const entry = 6 * (MAX_METADATA_KEY_CHARS + MAX_METADATA_VALUE_CHARS) + 6;
    expect(MAX_METADATA_ENTRIES * entry + 2).toBeLessThanOrEqual(JOB_COLUMN_MAX_BYTES.metadata_json);
    const worst = Object.fromEntries(
      Array.from({ length: MAX_METADATA_ENTRIES }, (_, i) => [
        `${i}`.padEnd(MAX_METADATA_KEY_CHARS, "\u0001"),
        "\u0001".repeat(MAX_METADATA_VALUE_CHARS),
      ]),
    );
    expect(utf8Bytes(JSON.stringify(worst))).toBeLessThanOrEqual(JOB_COLUMN_MAX_BYTES.metadata_json);
  });

  it("a directory output's row holds its largest file list and summary", () => {
    const longest = `${JSON.stringify({ path: "a".repeat(255), size: Number.MAX_SAFE_INTEGER })},`;
    expect(utf8Bytes(longest)).toBeLessThanOrEqual(DIRECTORY_FILE_ENTRY_MAX_BYTES);
    expect(
      MAX_DIRECTORY_FILES_LIMIT * DIRECTORY_FILE_ENTRY_MAX_BYTES +
        OUTPUT_METADATA_MAX_BYTES +
        JOB_FIXED_COLUMNS_MAX_BYTES,
    ).toBeLessThanOrEqual(D1_MAX_ROW_BYTES);
  });

  it("text is cut to bytes, never inside a character", () => {
    const text = "a€😀".repeat(1000);
    for (const max of [0, 1, 2, 3, 4, 5, 6, 7, 8, 100, 4001]) {
      const head = headBytes(text, max);
      const tail = tailBytes(text, max);
      expect(utf8Bytes(head)).toBeLessThanOrEqual(max);
      expect(utf8Bytes(tail)).toBeLessThanOrEqual(max);
      expect(text.startsWith(head) && text.endsWith(tail)).toBe(true);
      expect(max - utf8Bytes(head)).toBeLessThan(4);
    }
    expect(headBytes("short", 5)).toBe("short");
    // A string's length is its UTF-16 units: 262,144 of U+FFFD (what undecodable stdout becomes) are 786,432 bytes.
    expect(utf8Bytes(headBytes("\uFFFD".repeat(262_144), 262_144))).toBe(262_143);
  });

  it("the local triggers stay within D1's 100 KB a statement for a table of D1's 100 columns", () => {
    const columns = Array.from({ length: 100 }, (_, i) => `column_with_a_long_name_${i}`);
    for (const sql of rowSizeTriggerSql([{ table: "t", columns }])) expect(utf8Bytes(sql)).toBeLessThan(100_000);
    expect(recordBytesOfNew(["a"])).toContain('length(CAST(NEW."a" AS BLOB))');
  });
});
