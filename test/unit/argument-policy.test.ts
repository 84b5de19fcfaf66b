import { describe, expect, it } from "vitest";
import { checkArguments, walkArguments } from "../../src/jobs/policy/argument-policy.ts";

const names = {
  inputs: new Set(["in", "subs", "logo", "font", "log"]),
  outputs: new Set(["out", "thumb", "log", "hls", "frames", "parts"]),
  scratch: new Set(["log"]),
  directories: new Set(["hls", "frames", "parts"]),
};
const ff = (...args: string[]) => checkArguments("ffmpeg", args, names);
const probe = (...args: string[]) => checkArguments("ffprobe", args, names);

describe("argument policy", () => {
  it("accepts ordinary commands", () => {
    expect(
      ff(
        "-ss",
        "5",
        "-i",
        "{{in}}",
        "-t",
        "10",
        "-c:v",
        "libx264",
        "-crf",
        "23",
        "-preset",
        "fast",
        "-c:a",
        "aac",
        "-b:a",
        "128k",
        "-movflags",
        "+faststart",
        "{{out}}",
      ),
    ).toEqual([]);
    expect(
      ff(
        "-i",
        "{{in}}",
        "-i",
        "{{logo}}",
        "-filter_complex",
        "[0:v][1:v]overlay=10:10[v]",
        "-map",
        "[v]",
        "-map",
        "0:a?",
        "{{out}}",
      ),
    ).toEqual([]);
    expect(ff("-i", "{{in}}", "-vf", "subtitles={{subs}}:force_style='Fontsize=24'", "{{out}}")).toEqual([]);
    expect(ff("-i", "{{in}}", "-af", "loudnorm=I=-16:print_format=json", "-f", "null", "-")).toEqual([]);
    expect(probe("-v", "error", "-print_format", "json", "-show_format", "-show_streams", "{{in}}")).toEqual([]);
    expect(
      ff("-i", "{{in}}", "-filter_complex", "color=c=black:s=640x360:d=5[bg];[bg][0:v]overlay=shortest=1", "{{out}}"),
    ).toEqual([]);
    expect(
      ff("-i", "{{in}}", "-filter_complex", "anullsrc=r=48000:duration=2.5s[a]", "-map", "[a]", "{{out}}"),
    ).toEqual([]);
    expect(ff("-i", "{{in}}", "-i", "{{logo}}", "-vf", "curves=psfile={{logo}}", "{{out}}")).toEqual([]);
    expect(ff("-i", "{{in}}", "-c:v", "libx264", "-pass", "1", "-passlogfile", "{{log}}", "-f", "null", "-")).toEqual(
      [],
    );
    expect(ff("-i", "{{in}}", "-c:v", "libx264", "-pass", "2", "{{out}}")).toEqual([]);
    expect(
      ff(
        "-i",
        "{{in}}",
        "-f",
        "hls",
        "-hls_time",
        "4",
        "-hls_playlist_type",
        "vod",
        "-hls_flags",
        "independent_segments+split_by_time",
        "{{hls}}",
      ),
    ).toEqual([]);
    expect(
      ff(
        "-i",
        "{{in}}",
        "-map",
        "0:v",
        "-map",
        "0:v",
        "-f",
        "hls",
        "-var_stream_map",
        "v:0 v:1",
        "-master_pl_name",
        "master.m3u8",
        "-hls_segment_type",
        "fmp4",
        "-hls_fmp4_init_filename",
        "init_%v.mp4",
        "-hls_segment_filename",
        "{{hls/seg_%v_%03d.m4s}}",
        "{{hls/stream_%v.m3u8}}",
      ),
    ).toEqual([]);
    expect(ff("-i", "{{in}}", "-vf", "fps=1", "{{frames}}")).toEqual([]);
    expect(ff("-stats_period", "2", "-i", "{{in}}", "{{out}}")).toEqual([]);
    expect(
      ff("-i", "{{in}}", "-c", "copy", "-bsf:v", "h264_mp4toannexb", "-bsf:a", "aac_adtstoasc", "{{out}}"),
    ).toEqual([]);
    expect(ff("-i", "{{in}}", "-c", "copy", "-bsf:v", "h264_metadata=level=4.1,dump_extra", "{{out}}")).toEqual([]);
    expect(
      ff(
        "-err_detect",
        "crccheck+explode",
        "-i",
        "{{in}}",
        "-sws_flags",
        "lanczos+accurate_rnd",
        "-vbr",
        "constrained",
        "{{out}}",
      ),
    ).toEqual([]);
    expect(
      ff(
        "-i",
        "{{in}}",
        "-c",
        "copy",
        "-f",
        "segment",
        "-segment_time",
        "10",
        "-segment_list",
        "{{parts/list.m3u8}}",
        "-reset_timestamps",
        "1",
        "{{parts}}",
      ),
    ).toEqual([]);
  });

  it.each([
    [["-i", "/etc/passwd", "{{out}}"], 1, /input placeholder/],
    [["-i", "file:{{in}}", "{{out}}"], 1, /input placeholder/],
    [["-i", "{{in}}", "/tmp/x.mp4"], 2, /output placeholder/],
    [["-i", "{{in}}", "{{out}}", "../../x.mp4"], 3, /output placeholder/],
    [
      ["-f", "concat", "-i", "{{in}}", "{{out}}"],
      1,
      /format "concat" is not allowed: .*use the concat filter .* or the concat preset/,
    ],
    [
      ["-f", "lavfi", "-i", "{{in}}", "{{out}}"],
      1,
      /format "lavfi" is not allowed: use a source filter inside -filter_complex/,
    ],
    [["-f", "hls", "-i", "{{in}}", "{{out}}"], 1, /format "hls"/],
    [["-i", "{{in}}", "-f", "tee", "{{out}}"], 3, /format "tee"/],
    [["-i", "{{in}}", "-vf", "movie=/etc/passwd", "{{out}}"], 3, /movie/],
    [["-i", "{{in}}", "-vf", "drawtext=textfile=/etc/passwd", "{{out}}"], 3, /textfile/],
    [["-i", "{{in}}", "-vf", "subtitles=/etc/passwd", "{{out}}"], 3, /input placeholder/],
    [["-i", "{{in}}", "-vf", "subtitles=filename=/proc/self/environ", "{{out}}"], 3, /input placeholder/],
    [["-i", "{{in}}", "-af", "ladspa=file={{logo}}", "{{out}}"], 3, /filter "ladspa" is not allowed/],
    [["-i", "{{in}}", "-vf", "zmq", "{{out}}"], 3, /filter "zmq" is not allowed/],
    [
      ["-i", "{{in}}", "-filter_complex", "[0:v]sendcmd=f=/etc/passwd,null", "{{out}}"],
      3,
      /filter "sendcmd" is not allowed/,
    ],
    [["-i", "{{in}}", "-lavfi", "[0:v][0:v]psnr=stats.log", "-f", "null", "-"], 3, /psnr/],
    [["-i", "{{in}}", "-vf", "metadata=mode=print:file=/tmp/x", "{{out}}"], 3, /filter "metadata" is not allowed/],
    // Filters with file options a denylist once missed, and unbounded sources.
    [["-i", "{{in}}", "-vf", "cellauto=f=/etc/passwd", "{{out}}"], 3, /filter "cellauto" is not allowed/],
    [["-i", "{{in}}", "-vf", "curves=psfile=/etc/passwd", "{{out}}"], 3, /curves psfile must be an input placeholder/],
    [
      ["-i", "{{in}}", "-vf", "curves=preset=vintage:plot=/tmp/x.plt", "{{out}}"],
      3,
      /curves option plot is not allowed/,
    ],
    [
      ["-i", "{{in}}", "-i", "{{logo}}", "-lavfi", "vmafmotion=stats_file=/tmp/x", "-f", "null", "-"],
      5,
      /filter "vmafmotion" is not allowed/,
    ],
    [["-i", "{{in}}", "-vf", "paletteuse=debug_kdtree=/tmp/k.dot", "{{out}}"], 3, /paletteuse option debug_kdtree/],
    [
      ["-i", "{{in}}", "-filter_complex", "testsrc[v];[0:v][v]overlay", "{{out}}"],
      3,
      /source filter testsrc needs d= or duration=/,
    ],
    [["-i", "{{in}}", "-filter_complex", "color=black:d=99999[v];[0:v][v]overlay", "{{out}}"], 3, /from 0 to 3600 s/],
    [["-i", "{{in}}", "-filter_complex", "anullsrc=d=t*2[a]", "{{out}}"], 3, /source filter anullsrc/],
    [["-filter_complex_script", "/etc/passwd", "-i", "{{in}}", "{{out}}"], 0, /filter scripts/],
    [["-i", "{{in}}", "-vstats_file", "/tmp/x", "{{out}}"], 2, /side file/],
    [["-i", "{{in}}", "-pass", "1", "-passlogfile", "/tmp/x", "{{out}}"], 5, /scratch placeholder/],
    [["-i", "{{in}}", "-pass", "1", "-passlogfile", "{{in}}", "{{out}}"], 5, /scratch placeholder/],
    [["-i", "{{in}}", "-pass", "9", "{{out}}"], 3, /1, 2 or 3/],
    [["-f", "hls", "-i", "{{in}}", "{{out}}"], 1, /outputs only/],
    [["-i", "{{in}}", "-f", "hls", "{{out}}"], 4, /directory output/],
    [
      ["-i", "{{in}}", "-f", "hls", "-hls_segment_filename", "/tmp/seg_%d.ts", "{{hls}}"],
      5,
      /file in a directory output/,
    ],
    [
      ["-i", "{{in}}", "-f", "hls", "-hls_segment_filename", "{{out/seg_%d.ts}}", "{{hls}}"],
      5,
      /file in a directory output/,
    ],
    [
      ["-i", "{{in}}", "-f", "hls", "-hls_segment_filename", "{{hls/.hidden}}", "{{hls}}"],
      5,
      /file in a directory output/,
    ],
    [["-i", "{{in}}", "-f", "hls", "-master_pl_name", "../master.m3u8", "{{hls}}"], 5, /plain file name/],
    [["-i", "{{in}}", "-f", "hls", "-hls_flags", "+delete_segments", "{{hls}}"], 5, /hls flag "delete_segments"/],
    [["-i", "{{in}}", "-f", "hls", "-var_stream_map", "v:0,name:/etc", "{{hls}}"], 5, /stream specifiers/],
    [["-i", "{{in}}", "-f", "hls", "-hls_key_info_file", "/etc/passwd", "{{hls}}"], 4, /not a supported option/],
    [["-i", "{{in}}", "{{out/x.mp4}}"], 2, /output placeholder/],
    [["-report", "-i", "{{in}}", "{{out}}"], 0, /side file/],
    [["-progress", "http://127.0.0.1/", "-i", "{{in}}", "{{out}}"], 0, /progress/],
    [["-listen", "1", "-i", "{{in}}", "{{out}}"], 0, /listening/],
    [["-protocol_whitelist", "file,http", "-i", "{{in}}", "{{out}}"], 0, /protocol whitelist/],
    [["-attach", "/etc/passwd", "-i", "{{in}}", "{{out}}"], 0, /outside the job/],
    [["-dump_attachment:t", "", "-i", "{{in}}", "{{out}}"], 0, /named by the input/],
    [["-stream_loop", "-1", "-i", "{{in}}", "{{out}}"], 1, /endless/],
    [
      ["-i", "{{in}}", "-bsf:v", "h264_mp4toannexb,evil_bsf", "{{out}}"],
      3,
      /bitstream filter "evil_bsf" is not allowed/,
    ],
    [
      ["-i", "{{in}}", "-sws_flags", "lanczos+nosuch", "{{out}}"],
      3,
      /-sws_flags takes flags joined by \+ \("nosuch" is not one/,
    ],
    [["-err_detect", "", "-i", "{{in}}", "{{out}}"], 1, /-err_detect takes flags/],
    [
      ["-i", "{{in}}", "-f", "segment", "{{out}}"],
      4,
      /segment muxer writes many files: its output must be a directory output/,
    ],
    [
      ["-i", "{{in}}", "-f", "segment", "-segment_list", "/tmp/list.m3u8", "{{parts}}"],
      5,
      /-segment_list must name a file in a directory output/,
    ],
    [
      ["-i", "{{in}}", "-f", "segment", "-segment_format", "hls", "{{parts}}"],
      5,
      /-segment_format must be a single-file format/,
    ],
    [["-f", "segment", "-i", "{{in}}", "{{out}}"], 1, /outputs only/],
    // Reports an hour apart would starve live progress and look like a stall.
    [["-stats_period", "3600", "-i", "{{in}}", "{{out}}"], 1, /-stats_period must be a duration up to 10 s/],
    [["-stats_period", "0", "-i", "{{in}}", "{{out}}"], 1, /-stats_period must be/],
    [["-i", "{{in}}", "-x264-params", "pass=1:stats=/tmp/s.log", "{{out}}"], 3, /parameter "stats" is not allowed/],
    // A second attack pass on encoder parameters: spellings the encoders take for the same file parameters.
    [
      ["-i", "{{in}}", "-x264-params", "dump_yuv=/job/out/d/dump.yuv: stats=/job/out/d/s.log:pass=1", "{{out}}"],
      3,
      /"dump-yuv" is not allowed/,
    ],
    [["-i", "{{in}}", "-x264-params", "crf=20: stats=/x", "{{out}}"], 3, /"stats" is not allowed/],
    [["-i", "{{in}}", "-x265-params", "analysis_save=/job/out/x", "{{out}}"], 3, /"analysis-save" is not allowed/],
    [
      ["-i", "{{in}}", "-x265-params", "log-level=error:scaling-list=/etc/passwd", "{{out}}"],
      3,
      /"scaling-list" is not allowed/,
    ],
    [["-i", "{{in}}", "-x264opts", "keyint=50:cqmfile=/etc/passwd", "{{out}}"], 3, /"cqmfile" is not allowed/],
    // Filter graphs behind any stream specifier (F4) and keys with spaces before "=" (F2).
    [["-i", "{{in}}", "-filter:v:0", "movie=/etc/passwd", "{{out}}"], 3, /filter "movie" is not allowed/],
    [["-i", "{{in}}", "-af:a:0", "amovie=/etc/passwd", "{{out}}"], 3, /filter "amovie" is not allowed/],
    [["-i", "{{in}}", "-filter:0:v", "movie=/etc/passwd", "{{out}}"], 3, /filter "movie" is not allowed/],
    [["-i", "{{in}}", "-vf:v:0", "drawtext=textfile=/etc/passwd", "{{out}}"], 3, /textfile is not allowed/],
    [["-i", "{{in}}", "-vf", "drawtext=textfile =/usr/lib/os-release", "{{out}}"], 3, /textfile is not allowed/],
    [["-i", "{{in}}", "-vf", "drawtext= textfile=/usr/lib/os-release", "{{out}}"], 3, /textfile is not allowed/],
    [["-i", "{{in}}", "-vf", "curves=preset=none:plot =/job/out/d/planted.html", "{{out}}"], 3, /plot is not allowed/],
    [["-i", "{{in}}", "-vf", "paletteuse=debug_kdtree =/job/work/x", "{{out}}"], 3, /debug_kdtree is not allowed/],
    [["-i", "{{in}}", "-vf", "curves=none:/etc/x.acv", "{{out}}"], 3, /curves's options by name/],
    [["-i", "{{in}}", "-vf", "subtitles={{subs}}:fontsdir =/x", "{{out}}"], 3, /fontsdir is not allowed/],
    [["-filter_complex", "testsrc=d=1:duration=99999", "{{out}}"], 1, /needs d= or duration=/],
    [["-i", "{{in}}", "-metadata", "title={{in}}", "{{out}}"], 3, /placeholders belong/],
    [["-i", "{{in}}", "-hwaccel", "cuda", "{{out}}"], 2, /hardware/],
    [["-i", "{{in}}", "-some_private_option", "1", "{{out}}"], 2, /not a supported option/],
  ])("refuses %j at index %i", (args, index, message) => {
    const issues = ff(...(args as string[]));
    expect(issues.length).toBeGreaterThan(0);
    expect(issues[0].index).toBe(index);
    expect(issues[0].message).toMatch(message);
  });

  it("refuses an option it does not know with one error, not a second about its value", () => {
    expect(ff("-i", "{{in}}", "-some_private_option", "1", "{{out}}")).toEqual([
      { index: 2, message: "-some_private_option is not a supported option (GET /v1/policy lists them)" },
    ]);
    // A placeholder after it is still the output it names; an option after it is still read as one.
    expect(ff("-i", "{{in}}", "-nope", "{{out}}")).toHaveLength(1);
    expect(ff("-i", "{{in}}", "-nope", "-c:v", "libx264", "{{out}}")).toHaveLength(1);
  });

  it("refuses a NUL anywhere in an argument, at that argument (execve's arguments are C strings; found by an attack pass)", () => {
    const message = expect.stringMatching(/^an argument may not contain a NUL character/);
    expect(ff("-i", "{{in}}", "-metadata", "title=a\u0000b", "{{out}}")).toEqual([{ index: 3, message }]);
    expect(ff("-i", "{{in}}", "-metadata", "\u0000", "-c:v", "libx264", "{{out}}")).toEqual([{ index: 3, message }]);
    expect(ff("-i", "{{in}}", "{{out}}\u0000")).toEqual(expect.arrayContaining([{ index: 2, message }]));
    expect(probe("-v", "error\u0000", "{{in}}")).toEqual(expect.arrayContaining([{ index: 1, message }]));
    // Nor a lone surrogate (no UTF-8 form); a pair, an emoji, is an ordinary character.
    expect(ff("-i", "{{in}}", "-metadata", "title=\ud800x", "{{out}}")).toEqual([
      { index: 3, message: expect.stringMatching(/^an argument must be well-formed Unicode/) },
    ]);
    expect(ff("-i", "{{in}}", "-metadata", "title=\udc00", "{{out}}")).toHaveLength(1);
    expect(ff("-i", "{{in}}", "-metadata", "title=\ud83d\ude00 ok", "{{out}}")).toEqual([]);
  });

  it("takes encoder parameters that only tune the encoding", () => {
    expect(
      ff(
        "-i",
        "{{in}}",
        "-c:v",
        "libx264",
        "-x264-params",
        "keyint=60:min-keyint=60:scenecut=0:no-mbtree=1:aq_mode=2",
        "{{out}}",
      ),
    ).toEqual([]);
    expect(ff("-i", "{{in}}", "-c:v", "libx265", "-x265-params", "log-level=error:crf=26:no-sao=1", "{{out}}")).toEqual(
      [],
    );
    // libx264.c splits x264opts on ':' only: a comma is part of the value.
    expect(ff("-i", "{{in}}", "-c:v", "libx264", "-x264opts", "deblock=-1,-1:partitions=p8x8,b8x8", "{{out}}")).toEqual(
      [],
    );
  });

  it("refuses a playlist format before ffprobe's input, as before -i", () => {
    expect(probe("-show_format", "-f", "hls", "{{in}}")[0].message).toMatch(/for outputs only/);
  });

  it("refuses ffprobe's file writers and raw dumps", () => {
    expect(probe("-o", "/tmp/out.json", "{{in}}")[0].message).toMatch(/stdout only/);
    expect(probe("-show_data", "{{in}}")[0].message).toMatch(/raw input bytes/);
    expect(probe("/etc/passwd")[0].message).toMatch(/input placeholder/);
  });

  it("walks options, values and positionals like ffmpeg", () => {
    expect(
      walkArguments("ffmpeg", ["-y", "-ss", "-1", "-i", "{{in}}", "-report", "{{out}}"]).map((t) => t.kind),
    ).toEqual(["flag", "option", "option", "flag", "positional"]);
  });
});
