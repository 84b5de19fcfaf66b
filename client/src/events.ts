/** One Server-Sent Event as `GET /v1/jobs/{id}/events` sends it. */
export type ServerEvent = { id: string | null; event: string; data: string };

/** Parses a text/event-stream body into events (comments and keep-alives are skipped). */
export async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerEvent> {
  const decoder = new TextDecoder();
  let buffer = "";
  let current: ServerEvent = { id: null, event: "message", data: "" };
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      for (let newline = buffer.indexOf("\n"); newline >= 0; newline = buffer.indexOf("\n")) {
        const line = buffer.slice(0, newline).replace(/\r$/, "");
        buffer = buffer.slice(newline + 1);
        if (line === "") {
          if (current.data !== "") yield { ...current, data: current.data.replace(/\n$/, "") };
          current = { id: current.id, event: "message", data: "" };
        } else if (!line.startsWith(":")) {
          const colon = line.indexOf(":");
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
          if (field === "data") current.data += `${value}\n`;
          else if (field === "event") current.event = value;
          else if (field === "id") current.id = value;
        }
      }
    }
  } finally {
    reader.releaseLock();
  }
}
