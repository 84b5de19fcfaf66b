import type { FfmpegContainer } from "./ffmpeg-container.ts";
import type { ContainerPlacement } from "./container-placement.ts";
import type { RunnerTransport } from "./runner-client.ts";

/** Production: a job's runner is the container instance its placement chooses. */
export function containerTransport(ns: DurableObjectNamespace<FfmpegContainer>, placement: ContainerPlacement): RunnerTransport {
  const stub = (jobId: string) => ns.get(ns.idFromName(placement.instanceFor(jobId)));
  return {
    prepare: (jobId, scope) => stub(jobId).admitJob(jobId, scope),
    fetch: (jobId, path, init) => stub(jobId).fetch(new Request(`http://runner${path}`, init)),
    release: (jobId) => stub(jobId).releaseJob(jobId, placement.stopsWithJob),
    // A hand-over may boot a container: cold starts are seconds, reported up to tens of seconds.
    timeouts: { startMs: 90_000, callMs: 15_000 },
  };
}
