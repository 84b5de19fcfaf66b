/**
 * How an input's picture codes light and colour, read from ffprobe's stream fields. Only names from
 * these tables reach a filter's options: a file's tags are the other side's words, not arguments.
 * Zod-free and dependency-free: the runner imports it.
 */
import { ownValue } from "../own-key.ts";

/** PQ (SMPTE ST 2084: HDR10, HDR10+, most Dolby Vision) or HLG (ARIB STD-B67: phones, broadcast). */
export type HdrTransfer = "pq" | "hlg";

export type HdrFacts = {
  transfer: HdrTransfer;
  /** zscale's names for the primaries and matrix the picture is coded in (BT.2020 unless tagged otherwise). */
  primaries: "bt2020" | "bt709";
  matrix: "2020_ncl" | "2020_cl" | "709";
  /**
   * The Dolby Vision profile and its base layer's compatibility (1: HDR10, 4: HLG, 2: SDR, 0: none,
   * profile 5's IPT-PQ-c2 that only a Dolby Vision decoder shows right), when the file carries the record.
   */
  dolbyVision: { profile: number; compatibility: number } | null;
};

const TRANSFERS: Record<string, HdrTransfer> = { smpte2084: "pq", "arib-std-b67": "hlg" };
const PRIMARIES: Record<string, HdrFacts["primaries"]> = { bt2020: "bt2020", bt709: "bt709" };
const MATRICES: Record<string, HdrFacts["matrix"]> = { bt2020nc: "2020_ncl", bt2020c: "2020_cl", bt709: "709" };
const own = <T>(table: Record<string, T>, key: unknown): T | undefined =>
  typeof key === "string" ? ownValue(table, key) : undefined;

type SideData = Record<string, unknown>;

/** The stream's Dolby Vision configuration record, whatever its base layer (an SDR one too), or null. */
export function dolbyVisionOf(stream: Record<string, unknown>): HdrFacts["dolbyVision"] {
  const sides = Array.isArray(stream.side_data_list) ? (stream.side_data_list as SideData[]) : [];
  const record = sides.find((d) => d.side_data_type === "DOVI configuration record");
  const profile = Number(record?.dv_profile);
  const compatibility = Number(record?.dv_bl_signal_compatibility_id);
  return record && Number.isInteger(profile) && Number.isInteger(compatibility) ? { profile, compatibility } : null;
}

/**
 * The picture's HDR coding, or null for SDR. A Dolby Vision stream counts by its base layer: profile 8.4's
 * is HLG and 8.1's PQ whatever the stream's tags say; profile 5's is PQ-coded IPT (see `dolbyVision`).
 */
export function hdrFactsOf(stream: Record<string, unknown>): HdrFacts | null {
  const dolbyVision = dolbyVisionOf(stream);
  const fromDolby = dolbyVision
    ? ({ 1: "pq", 4: "hlg", 0: "pq", 6: "pq" } as Record<number, HdrTransfer>)[dolbyVision.compatibility]
    : undefined;
  const transfer = own(TRANSFERS, stream.color_transfer) ?? fromDolby;
  if (!transfer) return null;
  return {
    transfer,
    primaries: own(PRIMARIES, stream.color_primaries) ?? "bt2020",
    matrix: own(MATRICES, stream.color_space) ?? "2020_ncl",
    dolbyVision,
  };
}
