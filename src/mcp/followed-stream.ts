/**
 * A response body passed on as it is, telling `gone` when its reader goes away (a client that
 * disconnects cancels the stream): the request's own signal does not say so in every runtime, and a
 * tool still waiting for a job should stop.
 */
export function followed(body: ReadableStream<Uint8Array>, gone: AbortController): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel(reason) {
      gone.abort();
      return reader.cancel(reason);
    },
  });
}
