import { describe, expect, it } from "vitest";
import { z } from "zod";
import { PRESETS } from "../../src/presets/catalog.ts";
import { expandPresetJob, type ExpandedPreset } from "../../src/presets/expand-preset.ts";
import { checkJobRequest } from "../../src/jobs/request/check-job-request.ts";
import type { PresetJobRequest } from "../../src/api/schemas/presets.ts";

const url = (n: string) => ({ type: "url" as const, url: `https://media.example.com/${n}.mp4` });

function requestFor(name: string, params: Record<string, unknown>): PresetJobRequest {
  const preset = PRESETS.get(name)!;
  return preset.inputs === "list"
    ? { mode: "preset", preset: name, input: [url("a"), url("b"), url("c")], params }
    : { mode: "preset", preset: name, inputs: Object.fromEntries(preset.inputs.map((n) => [n, url(n)])), params };
}

/** Parameters that exclude another one (tested alone, at their edges, not in the all-together sets). */
const EXCLUSIVE: Record<string, string[]> = { thumbnail: ["percent"] };

/** Parameter sets at the edges of each preset's schema: every number at its minimum, then its maximum, every enum value. */
function edgeParams(name: string): Record<string, unknown>[] {
  const schema = z.toJSONSchema(PRESETS.get(name)!.params, { io: "input" }) as { properties?: Record<string, any> };
  const all = Object.entries(schema.properties ?? {});
  const alone = all.filter(([k]) => EXCLUSIVE[name]?.includes(k));
  const props = all.filter(([k]) => !EXCLUSIVE[name]?.includes(k));
  const at = (pick: (p: any) => unknown) =>
    Object.fromEntries(props.flatMap(([k, p]) => (pick(p) === undefined ? [] : [[k, pick(p)]])));
  const sets = [at((p) => p.minimum ?? p.exclusiveMinimum), at((p) => p.maximum ?? p.exclusiveMaximum)];
  for (const [k, p] of alone) sets.push({ [k]: p.minimum }, { [k]: p.maximum });
  for (const [k, p] of props) for (const v of p.enum ?? []) sets.push({ [k]: v });
  return sets;
}

describe("presets", () => {
  it("are at least the ones the contract names", () => {
    expect([...PRESETS.keys()]).toEqual(
      expect.arrayContaining([
        "probe",
        "thumbnail",
        "contact-sheet",
        "web-mp4",
        "webm",
        "audio-mp3",
        "audio-aac",
        "audio-opus",
        "gif",
        "loudnorm",
        "waveform",
        "trim",
        "concat",
        "watermark",
        "hls-ladder",
      ]),
    );
  });

  it("thumbnail: a percentage becomes {{video@P%}} for the runner to resolve; seconds and percent exclude each other", () => {
    const expanded = expandPresetJob(requestFor("thumbnail", { percent: 50 })) as ExpandedPreset;
    expect(expanded.request.ffmpegArgs!.slice(0, 2)).toEqual(["-ss", "{{video@50%}}"]);
    expect(checkJobRequest(expanded.request)).toEqual([]);
    const both = expandPresetJob(requestFor("thumbnail", { percent: 50, at: 2 })) as { issues: { path: string[] }[] };
    expect(both.issues.map((i) => i.path)).toEqual([["params", "percent"]]);
  });

  it("hls-ladder: one variant per rendition, into a directory output, with or without audio", () => {
    const expanded = expandPresetJob(requestFor("hls-ladder", { renditions: [240, 480, 720] })) as ExpandedPreset;
    const args = expanded.request.ffmpegArgs!;
    expect(args[args.indexOf("-var_stream_map") + 1]).toBe("v:0,a:0 v:1,a:1 v:2,a:2");
    expect(expanded.request.outputs).toEqual({
      hls: { fileName: "master.m3u8", contentType: "application/vnd.apple.mpegurl", kind: "directory" },
    });
    const silent = expandPresetJob(requestFor("hls-ladder", { renditions: [240], audio: false })) as ExpandedPreset;
    expect(silent.request.ffmpegArgs).not.toContain("0:a:0");
    expect(checkJobRequest(silent.request)).toEqual([]);
    expect(
      (
        expandPresetJob(requestFor("hls-ladder", { renditions: [240, 240] })) as { issues: { path: string[] }[] }
      ).issues.map((i) => i.path),
    ).toEqual([["params", "renditions"]]);
  });

  for (const name of PRESETS.keys()) {
    it(`${name}: expands, with its defaults and at its parameters' edges, into a job the API rules accept`, () => {
      const required = name === "trim" ? { duration: 2 } : {};
      for (const params of [required, ...edgeParams(name).map((p) => ({ ...required, ...p }))]) {
        const expanded = expandPresetJob(requestFor(name, params));
        expect("issues" in expanded ? expanded.issues : [], JSON.stringify(params)).toEqual([]);
        expect(checkJobRequest((expanded as ExpandedPreset).request), JSON.stringify(params)).toEqual([]);
      }
    });
  }

  it("say what is wrong: an unknown preset, bad parameters, missing or unknown inputs and outputs", () => {
    expect(expandPresetJob({ mode: "preset", preset: "nope", inputs: {} })).toEqual({
      issues: [expect.objectContaining({ path: ["preset"] })],
    });
    const bad = expandPresetJob({
      ...requestFor("thumbnail", { width: 1, extra: 1 }),
      outputs: { other: { fileName: "x.jpg" } },
    }) as { issues: { path: string[] }[] };
    expect(bad.issues.map((i) => i.path)).toEqual(
      expect.arrayContaining([["params", "width"], ["params"], ["outputs", "other"]]),
    );
    expect(
      (
        expandPresetJob({ mode: "preset", preset: "watermark", inputs: { video: url("v") } }) as {
          issues: { path: string[] }[];
        }
      ).issues.map((i) => i.path),
    ).toEqual([["inputs", "logo"]]);
    expect(
      (
        expandPresetJob({ mode: "preset", preset: "concat", input: [url("a")] }) as { issues: { path: string[] }[] }
      ).issues.map((i) => i.path),
    ).toEqual([["input"]]);
  });

  it("let the client rename an output file, keeping a fitting content type", () => {
    const expanded = expandPresetJob({
      ...requestFor("thumbnail", {}),
      outputs: { thumbnail: { fileName: "poster.png" } },
    }) as ExpandedPreset;
    expect(expanded.request.outputs).toEqual({ thumbnail: { fileName: "poster.png", contentType: "image/png" } });
  });
});

describe("a preset's checks", () => {
  const checksOf = (req: PresetJobRequest, output: string) =>
    (expandPresetJob(req) as ExpandedPreset).request.outputs![output].checks;

  it("are what its policy promises, fitted to the job: no comparison with the input on a split, faststart only for MP4/MOV", () => {
    const plain = checksOf(requestFor("web-mp4", {}), "mp4");
    expect(plain).toMatchObject({ fullDecode: true, durationSeconds: { asInput: "video" }, faststart: true });
    const split = checksOf({ ...requestFor("web-mp4", {}), parallel: { segmentSeconds: 10, maxWorkers: 2 } }, "mp4");
    expect(split?.durationSeconds).toBeUndefined();
    expect(split).toMatchObject({ fullDecode: true, avSync: { maxStartDiffMs: 42 } });
    const mkv = checksOf({ ...requestFor("web-mp4", {}), outputs: { mp4: { fileName: "video.mkv" } } }, "mp4");
    expect(mkv?.faststart).toBeUndefined();
    expect(checksOf(requestFor("loudnorm", { target: -20 }), "normalized")?.loudness?.integratedLufs).toBe(-20);
  });

  it("are replaced by the client's own for that output", () => {
    const own = checksOf({ ...requestFor("web-mp4", {}), outputs: { mp4: { checks: { width: 640 } } } }, "mp4");
    expect(own).toEqual({ width: 640 });
  });
});
