// docs/capacity.md's estimate of an hour of 1080p as a split job, made from what
// bench/split-encode.ts measured on one core: the rate a segment encodes at, the audio's and the join's
// time per second of video, the plan. Each container type's vCPUs are assumed to encode that many times
// as fast (x264 keeps 1-4 threads busy on 1080p → 720p; to be measured on the platform).

/** Cloudflare's container types (developers.cloudflare.com/containers/platform/limits/, read 2026-11). */
const TYPES = [
  { name: "standard-1", vcpu: 0.5, memoryGiB: 4, diskGB: 8 },
  { name: "standard-2", vcpu: 1, memoryGiB: 6, diskGB: 12 },
  { name: "standard-3", vcpu: 2, memoryGiB: 8, diskGB: 16 },
  { name: "standard-4", vcpu: 4, memoryGiB: 12, diskGB: 20 },
];
/** Cloudflare's container rates beyond the included usage (developers.cloudflare.com/containers/pricing/, read 2026-11), USD per second. */
const PRICE = { vcpuSecond: 0.00002, gibSecond: 0.0000025, gbSecond: 0.00000007 };
/** A container's start when none is warm (the container suite's cold job, docs/benchmarks.md). */
const COLD_START_MS = 3000;
const HOUR_SECONDS = 3600;
const SEGMENT_SECONDS = 60;
const WORKERS = [1, 10, 30, 60];

export type SplitMeasurements = {
  /** Video seconds a segment encodes per second on one core. */
  segmentRate: number;
  /** Bare ffmpeg on one core, the whole clip: video seconds per second. */
  bareRate: number;
  audioMsPerVideoSecond: number;
  joinMsPerVideoSecond: number;
  planMs: number;
  idleSeconds: number;
};

const minutes = (s: number) => (s >= 600 ? `${Math.round(s / 60)} min` : `${(s / 60).toFixed(1)} min`);

export function splitCapacitySection(m: SplitMeasurements, measuredOn: string): string {
  const segments = Math.ceil(HOUR_SECONDS / SEGMENT_SECONDS);
  const rows = TYPES.map((t) => {
    const segment = SEGMENT_SECONDS / (m.segmentRate * t.vcpu);
    const audio = (HOUR_SECONDS * m.audioMsPerVideoSecond) / 1000 / t.vcpu;
    const join = (HOUR_SECONDS * m.joinMsPerVideoSecond) / 1000;
    const perSecond = t.vcpu * PRICE.vcpuSecond + t.memoryGiB * PRICE.gibSecond + t.diskGB * PRICE.gbSecond;
    const idleRate = t.memoryGiB * PRICE.gibSecond + t.diskGB * PRICE.gbSecond;
    const single = HOUR_SECONDS / (m.bareRate * t.vcpu);
    const cells = WORKERS.map((n) => {
      // The audio holds one worker at the start; the segments fill every worker, wave by wave.
      const waves = Math.ceil((segments + audio / segment) / n);
      const wall = (m.planMs + COLD_START_MS) / 1000 + waves * segment + join;
      const busy = segments * segment + audio + join + m.planMs / 1000;
      const cost = busy * perSecond + n * m.idleSeconds * idleRate;
      return `${minutes(wall)}, $${cost.toFixed(3)}`;
    });
    return `| ${t.name} (${t.vcpu} vCPU, ${t.memoryGiB} GiB) | ${minutes(single)}, $${(single * perSecond).toFixed(3)} | ${cells.join(" | ")} |`;
  });
  return `## An hour of 1080p as a split job (written by \`npm run bench\`, bench/split-capacity.ts)

An hour of 1080p30 → 720p x264 \`veryfast\` + AAC, as \`parallel: { segmentSeconds: ${SEGMENT_SECONDS}, maxWorkers: N }\` (${segments}
segments), estimated from bench/split-encode.ts's figures on this machine (${measuredOn}): a segment encodes
**${m.segmentRate.toFixed(2)} s of video per second on one core** (bare ffmpeg on the whole clip: ${m.bareRate.toFixed(2)}), the audio takes
${m.audioMsPerVideoSecond.toFixed(0)} ms and the join ${m.joinMsPerVideoSecond.toFixed(0)} ms per second of video, the plan ${Math.round(m.planMs)} ms, plus one cold start
(${COLD_START_MS / 1000} s). A type with c vCPUs is taken to encode c times as fast as one core (x264 keeps up to 4 threads busy
on 1080p; measure on the platform before relying on it). Wall time = plan + cold start + waves of segments (the
audio holds one worker at the start) + join; cost = the containers' busy seconds at Cloudflare's rates
($${PRICE.vcpuSecond.toFixed(5)}/vCPU-s, $${PRICE.gibSecond.toFixed(7)}/GiB-s, $${PRICE.gbSecond.toFixed(8)}/GB-s beyond the included usage; CPU billed as if
busy the whole time, an upper bound) plus each worker's idle tail (\`CONTAINER_IDLE_SECONDS\`, ${m.idleSeconds} s: memory and
disk only). "one container" is the same command run whole.

| instance type | one container | N = ${WORKERS.join(" | N = ")} |
|---|---|${WORKERS.map(() => "---|").join("")}
${rows.join("\n")}

The join's time grows with the output (it copies every segment once) and is the floor: past ≈ ${Math.ceil(segments / 2)} workers
it is most of the wall time. The account's concurrent vCPU cap (1,500) bounds N × vCPU across all jobs; the pool's
\`max_instances\` (20 in wrangler.toml) bounds N per deployment until raised. Billed to the job's account: the tasks'
run time added up (≈ ${(HOUR_SECONDS / m.segmentRate / 60).toFixed(0)} min of one core for the hour, against ≈ ${(HOUR_SECONDS / m.bareRate / 60).toFixed(0)} for one run).`;
}
