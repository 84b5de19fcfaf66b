import { readdirSync, readFileSync } from "node:fs";

/** /proc reports CPU time in USER_HZ ticks, fixed at 100 per second on Linux's ABI for every architecture it runs on here. */
const MS_PER_TICK = 10;

/**
 * CPU milliseconds used so far by a process and every process under it (bubblewrap's children,
 * ffmpeg's), read from /proc: their own time plus that of children they already reaped, so the sum
 * does not drop when one exits. Null where /proc cannot be read (not Linux), or the process is gone.
 *
 * The tree is found from the root down (`/proc/PID/task/TID/children`, each thread's own children),
 * not by reading every process on the host: on a host with a few hundred processes a full scan each
 * second was 40 % of the runner's own CPU during a long encode, and most of its garbage collections.
 * Synchronous reads: /proc files are made by the kernel on read, never wait on a disk, and a sample
 * reads a few dozen of them. A kernel without CONFIG_PROC_CHILDREN gets the full scan.
 */
export function processTreeCpuMs(rootPid: number): number | null {
  const root = readStat(rootPid);
  if (!root) return null;
  if (!readsChildren(rootPid)) return fullScanCpuMs(rootPid);
  let ticks = 0;
  const seen = new Set<number>();
  const pending = [rootPid];
  for (let pid = pending.pop(); pid !== undefined; pid = pending.pop()) {
    if (seen.has(pid)) continue;
    seen.add(pid);
    const stat = pid === rootPid ? root : readStat(pid);
    if (!stat) continue; // exited while we looked: its parent's cutime has it once reaped
    ticks += stat.ticks;
    pending.push(...childrenOf(pid));
  }
  return ticks * MS_PER_TICK;
}

type ProcStat = { pid: number; parent: number; ticks: number };

function readStat(pid: number): ProcStat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name is in parentheses and may hold spaces or parentheses: fields start after the last ")".
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    // fields[0] is field 3 of proc(5): ppid is 4, utime stime cutime cstime are 14-17.
    const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
    return { pid, parent: Number(fields[1]), ticks };
  } catch {
    return null;
  }
}

function readsChildren(pid: number): boolean {
  try {
    readFileSync(`/proc/${pid}/task/${pid}/children`);
    return true;
  } catch {
    return false;
  }
}

/** Every thread's children: a process started by any thread of `pid` is listed under that thread. */
function childrenOf(pid: number): number[] {
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const tid of threads) {
    try {
      for (const child of readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").split(" "))
        if (child) out.push(Number(child));
    } catch {
      // the thread ended while we looked
    }
  }
  return out;
}

/** Every process on the host read, the tree picked out by parent pid (exported for the test that holds the two ways equal). */
export function fullScanCpuMs(rootPid: number): number | null {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return null;
  }
  const children = new Map<number, ProcStat[]>();
  let root: ProcStat | undefined;
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const s = readStat(Number(entry));
    if (!s) continue;
    if (s.pid === rootPid) root = s;
    const siblings = children.get(s.parent);
    if (siblings) siblings.push(s);
    else children.set(s.parent, [s]);
  }
  if (!root) return null;
  let ticks = 0;
  const pending = [root];
  for (let s = pending.pop(); s; s = pending.pop()) {
    ticks += s.ticks;
    pending.push(...(children.get(s.pid) ?? []));
  }
  return ticks * MS_PER_TICK;
}
