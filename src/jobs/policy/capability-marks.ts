import type { RunnerCapabilities } from "../../runner/runner-protocol.ts";
import { ALLOWED_FILTERS } from "./filter-tables.ts";
import { ALLOWED_FORMATS, INPUT_FORMAT_WHITELIST } from "./option-tables.ts";

/** Codecs that need a hardware device: the sandbox has none (and -hwaccel is refused). */
const HARDWARE =
  /_(vaapi|qsv|nvenc|cuvid|v4l2m2m|vulkan|amf|mf|videotoolbox|omx|rkmpp|mmal|mediacodec|crystalhd|vdpau)$/;

const FILTERS = new Set<string>(ALLOWED_FILTERS);
const MUXERS = new Set<string>(ALLOWED_FORMATS);
const DEMUXERS = new Set<string>(INPUT_FORMAT_WHITELIST);

/**
 * The binaries' capabilities with what the policy allows marked: codecs are not restricted (except
 * those needing hardware), muxers are `-f` names the policy accepts, demuxers those a job's inputs may
 * be read with (`-format_whitelist`), filters the allowlist (GET /v1/policy has the rules).
 */
export function markCapabilities(c: RunnerCapabilities) {
  const codec = <T extends { name: string }>(x: T) => ({
    ...x,
    allowed: !HARDWARE.test(x.name),
    ...(HARDWARE.test(x.name) ? { reason: "needs a hardware device" } : {}),
  });
  // A demuxer line may name several formats (`mov,mp4,m4a,3gp,3g2,mj2`): allowed if the whitelist names any of them.
  const demuxer = (d: { name: string; description: string }) => ({
    ...d,
    allowed: d.name.split(",").some((n) => DEMUXERS.has(n)),
  });
  return {
    ffmpeg: c.ffmpeg,
    ffprobe: c.ffprobe,
    encoders: c.encoders.map(codec),
    decoders: c.decoders.map(codec),
    muxers: c.muxers.map((m) => ({ ...m, allowed: MUXERS.has(m.name) })),
    demuxers: c.demuxers.map(demuxer),
    filters: c.filters.map((f) => ({ ...f, allowed: FILTERS.has(f.name) })),
    sandbox: c.sandbox,
    // What the output checks can measure here (src/jobs/checks/): VMAF only with a libvmaf build.
    checks: { vmaf: c.filters.some((f) => f.name === "libvmaf") },
  };
}
