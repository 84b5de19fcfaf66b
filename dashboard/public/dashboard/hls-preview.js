// A directory output's HLS playlist, played in the page: natively where the browser can (Safari), else
// with hls.js, served by the dashboard itself (vendor/, copied from node_modules when the dashboard is
// built) and loaded only when a job page has a playlist to show. No worker (the CSP allows none).
let loading = null;

function loadHlsJs() {
  loading ??= new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = new URL("vendor/hls.min.js", import.meta.url).href;
    script.onload = () => resolve(globalThis.Hls);
    script.onerror = () => reject(new Error("the HLS player could not be loaded"));
    document.head.append(script);
  });
  return loading;
}

/** A <video> that plays the playlist at `url`. */
export function hlsPreview(url, label) {
  const video = document.createElement("video");
  video.controls = true;
  video.muted = true;
  video.setAttribute("aria-label", label);
  if (video.canPlayType("application/vnd.apple.mpegurl")) {
    video.src = url;
    return video;
  }
  loadHlsJs().then((Hls) => {
    if (!Hls.isSupported()) return;
    const hls = new Hls({ enableWorker: false });
    hls.loadSource(url);
    hls.attachMedia(video);
    video.hls = hls;
  }).catch((err) => video.replaceWith(Object.assign(document.createElement("p"), { className: "error", textContent: err.message })));
  return video;
}
