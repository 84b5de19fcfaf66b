import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { processTreeCpuMs } from "../../container/src/process-cpu.ts";

describe("process tree CPU time (/proc)", () => {
  it("grows while a child of the process works and holds while it sleeps; null for a process that is not there", async () => {
    // sh → a busy loop in a child shell: the time is counted from the parent's tree.
    const child = spawn("sh", ["-c", "sh -c 'i=0; while [ $i -lt 3000000 ]; do i=$((i+1)); done'; sleep 30"], {
      stdio: "ignore",
    });
    try {
      const first = (await processTreeCpuMs(child.pid!))!;
      await new Promise((r) => setTimeout(r, 1500));
      const later = (await processTreeCpuMs(child.pid!))!;
      expect(later - first).toBeGreaterThan(500);
      expect(await processTreeCpuMs(2 ** 22 + 12345)).toBeNull();
    } finally {
      child.kill("SIGKILL");
    }
  });
});
