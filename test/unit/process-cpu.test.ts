import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { fullScanCpuMs, processTreeCpuMs } from "../../container/src/process-cpu.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("process tree CPU time (/proc)", () => {
  it("grows while a child of the process works and holds while it sleeps; null for a process that is not there", async () => {
    // sh → a busy loop in a child shell: the time is counted from the parent's tree.
    const child = spawn("sh", ["-c", "sh -c 'i=0; while [ $i -lt 3000000 ]; do i=$((i+1)); done'; sleep 30"], {
      stdio: "ignore",
    });
    try {
      const first = processTreeCpuMs(child.pid!)!;
      // The loop's share of a core depends on what else runs (the whole suite, in parallel): wait for
      // half a second of its CPU, up to 10 s. The parent shell itself uses none: all of it is the child's.
      let later = first;
      for (let i = 0; i < 100 && later - first <= 500; i++) {
        await sleep(100);
        later = processTreeCpuMs(child.pid!)!;
      }
      expect(later - first).toBeGreaterThan(500);
      expect(processTreeCpuMs(2 ** 22 + 12345)).toBeNull();
    } finally {
      child.kill("SIGKILL");
    }
  });

  it("counts a grandchild started by a thread other than its parent's first, as the scan of every process does", async () => {
    // A process started from a second thread is listed under that thread's children, not the main
    // thread's: a walk that read only /proc/PID/task/PID/children would miss its work.
    const script = [
      "import subprocess, threading, time",
      // The thread stays alive: when a thread ends, the kernel hands its children to another thread.
      "def start(): subprocess.Popen(['sh', '-c', 'while :; do :; done']); time.sleep(30)",
      "threading.Thread(target=start).start()",
      "time.sleep(30)",
    ].join("\n");
    const child = spawn("python3", ["-c", script], { stdio: "ignore", detached: true });
    try {
      // The busy grandchild's share of a core depends on what else runs (the whole suite, in parallel):
      // wait for half a second of its CPU, up to 10 s, as the test above does.
      for (let i = 0; i < 100 && (processTreeCpuMs(child.pid!) ?? 0) <= 500; i++) await sleep(100);
      const walked = processTreeCpuMs(child.pid!)!;
      const scanned = fullScanCpuMs(child.pid!)!;
      const walkedAfter = processTreeCpuMs(child.pid!)!;
      // Counted, though a thread other than python's first started it (python's own start is ~30 ms).
      expect(walked).toBeGreaterThan(500);
      // Read one after the other while the loop runs: the scan lies between the two walks.
      expect(scanned).toBeGreaterThanOrEqual(walked);
      expect(scanned).toBeLessThanOrEqual(walkedAfter);
    } finally {
      process.kill(-child.pid!, "SIGKILL"); // the group: python and its busy loop
    }
  });
});
