import { readdir, readFile } from "node:fs/promises";

/** /proc reports CPU time in USER_HZ ticks, fixed at 100 per second on Linux's ABI for every architecture it runs on here. */
const MS_PER_TICK = 10;

/**
 * CPU milliseconds used so far by a process and every process under it (bubblewrap's children,
 * ffmpeg's), read from /proc: their own time plus that of children they already reaped, so the sum
 * does not drop when one exits. Null where /proc cannot be read (not Linux).
 */
export async function processTreeCpuMs(rootPid: number): Promise<number | null> {
  let entries: string[];
  try {
    entries = await readdir("/proc");
  } catch {
    return null;
  }
  const stats = await Promise.all(entries.filter((e) => /^\d+$/.test(e)).map((pid) => readStat(Number(pid))));
  const children = new Map<number, ProcStat[]>();
  let root: ProcStat | undefined;
  for (const s of stats) {
    if (!s) continue;
    if (s.pid === rootPid) root = s;
    children.set(s.parent, [...(children.get(s.parent) ?? []), s]);
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

type ProcStat = { pid: number; parent: number; ticks: number };

async function readStat(pid: number): Promise<ProcStat | null> {
  try {
    const text = await readFile(`/proc/${pid}/stat`, "utf8");
    // The command name is in parentheses and may hold spaces or parentheses: fields start after the last ")".
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    // fields[0] is field 3 of proc(5): ppid is 4, utime stime cutime cstime are 14-17.
    const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
    return { pid, parent: Number(fields[1]), ticks };
  } catch {
    return null; // exited while we looked
  }
}
