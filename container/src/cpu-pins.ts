/**
 * RUNNER_PIN_CPUS: each running job's processes pinned to one CPU of a list, the one with the fewest
 * jobs on it. It models one-vCPU containers on one machine (the split-encode benchmark, bench/), and
 * keeps jobs off each other's cores where an operator wants that. Unset: no pinning.
 */
export function createCpuPins(cpus: readonly number[]) {
  const holders = new Map(cpus.map((cpu) => [cpu, 0]));
  return {
    take(): number {
      const [cpu] = [...holders].sort((a, b) => a[1] - b[1])[0];
      holders.set(cpu, holders.get(cpu)! + 1);
      return cpu;
    },
    give(cpu: number): void {
      holders.set(cpu, Math.max(0, (holders.get(cpu) ?? 1) - 1));
    },
  };
}

/** A command line run on one CPU only (taskset, util-linux): its children inherit the pin. */
export function pinnedCommand(
  command: { file: string; args: string[] },
  cpu: number | null,
): { file: string; args: string[] } {
  return cpu === null ? command : { file: "taskset", args: ["--cpu-list", String(cpu), command.file, ...command.args] };
}
