import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { jobOwner, listFiles, openDirIn, openFileIn, openTrustedDir } from "../../container/src/output-file.ts";
import { swapForLink } from "../support/planted-links.ts";

/* A secret only this user can read, where the links below point (the job's process plays no part here). */
const secretDir = join(tmpdir(), `ffjobs-open-secret-${process.pid}`);
mkdirSync(secretDir, { recursive: true, mode: 0o700 });
writeFileSync(join(secretDir, "shadow"), `secret-${crypto.randomUUID()}`, { mode: 0o600 });
afterAll(() => rmSync(secretDir, { recursive: true, force: true }));

describe("output-file.ts: how the runner opens what a job wrote", () => {
  const dir = join(tmpdir(), `ffjobs-open-${process.pid}`);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("opens the job's own regular file and reads its size and bytes from the descriptor, even once the name is swapped", async () => {
    mkdirSync(join(dir, "sub"), { recursive: true });
    writeFileSync(join(dir, "own.bin"), "own bytes");
    const out = await openTrustedDir(dir);
    const file = await openFileIn(out, "own.bin", jobOwner(null));
    swapForLink(join(dir, "own.bin"), join(secretDir, "shadow"));
    expect(file.size).toBe(9);
    expect((await file.handle.readFile()).toString()).toBe("own bytes");
    await file.handle.close();
    await expect(openFileIn(out, "own.bin", jobOwner(null))).rejects.toThrow(/symbolic link/);
    await expect(openFileIn(out, "sub", jobOwner(null))).rejects.toThrow(/not a regular file/);
    await out.handle.close();
  });

  it("refuses a file another uid owns (a hard link to a file not the job's, under the uid fallback)", async () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "theirs.bin"), "x");
    const out = await openTrustedDir(dir);
    const jobUid = (process.geteuid?.() ?? 0) + 200_000;
    await expect(openFileIn(out, "theirs.bin", jobOwner(jobUid))).rejects.toThrow(/not the job's own file/);
    await out.handle.close();
  });

  it("resolves names in the folder it holds open, not in whatever its path names later", async () => {
    mkdirSync(join(dir, "held"), { recursive: true });
    writeFileSync(join(dir, "held", "a.ts"), "held");
    const out = await openTrustedDir(dir);
    const held = await openDirIn(out, "held", jobOwner(null));
    renameSync(join(dir, "held"), join(dir, "held.moved"));
    symlinkSync(secretDir, join(dir, "held"));
    expect((await listFiles(held)).files).toEqual(["a.ts"]);
    const file = await openFileIn(held, "a.ts", jobOwner(null));
    expect((await file.handle.readFile()).toString()).toBe("held");
    await Promise.all([file.handle.close(), held.handle.close()]);
    await expect(openDirIn(out, "held", jobOwner(null))).rejects.toThrow(/symbolic link/);
    await out.handle.close();
  });
});
