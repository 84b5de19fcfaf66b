import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { promisify } from "node:util";
import type { DevStack } from "./dev-stack.ts";

const root = resolve(import.meta.dirname, "../..");

/**
 * A key of another account than the operator's (the local stack's own key is one), made with the keys
 * CLI. Tried again while the stack's sweeper holds the SQLite file, as test/faults/fault-stack.ts does.
 */
export async function makeUserKey(stack: DevStack, account: string): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    try {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [resolve(root, "scripts/keys.ts"), "create", "--account", account, "--local"],
        { cwd: root, env: stack.env },
      );
      return stdout.trim().split("\n").pop()!;
    } catch (err) {
      const said = `${(err as Error).message} ${(err as { stderr?: string }).stderr ?? ""}`;
      if (attempt >= 5 || !/SQLITE_BUSY|database is locked/.test(said)) throw err;
      await new Promise((done) => setTimeout(done, 1000));
    }
  }
}
