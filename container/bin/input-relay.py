# Inside a job's sandbox (bubblewrap: a network namespace of its own, with only loopback), so that
# ffmpeg can read its inputs by range without any network: listens on 127.0.0.1:PORT, carries each
# connection to the runner's input socket (a Unix socket bound into the sandbox), and runs the
# command. The runner fetches from the origin only the ranges ffmpeg asks for
# (container/src/input-server.ts). Exits with the command's status (128+N when a signal ended it).
import os
import socket
import sys
import threading

# Small buffers on purpose: every byte buffered between the runner and ffmpeg is a byte the runner
# fetched that ffmpeg may never read (it seeks away), so the path holds little more than ffmpeg's own reads.
CHUNK_BYTES = 64 * 1024
SOCKET_BUFFER_BYTES = 64 * 1024


def pump(source: socket.socket, sink: socket.socket) -> None:
    buffer = memoryview(bytearray(CHUNK_BYTES))
    try:
        while True:
            n = source.recv_into(buffer)
            if n == 0:
                break
            sink.sendall(buffer[:n])
    except OSError:
        pass
    finally:
        # The other side learns this one is done; a reset ends both directions.
        for s, how in ((sink, socket.SHUT_WR), (source, socket.SHUT_RD)):
            try:
                s.shutdown(how)
            except OSError:
                pass


def carry(client: socket.socket, socket_path: str) -> None:
    client.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SOCKET_BUFFER_BYTES)
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    upstream.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, SOCKET_BUFFER_BYTES)
    try:
        upstream.connect(socket_path)
    except OSError:
        client.close()
        upstream.close()
        return
    back = threading.Thread(target=pump, args=(upstream, client), daemon=True)
    back.start()
    pump(client, upstream)
    back.join()
    client.close()
    upstream.close()


def serve(listener: socket.socket, socket_path: str) -> None:
    while True:
        client, _ = listener.accept()
        threading.Thread(target=carry, args=(client, socket_path), daemon=True).start()


def main() -> None:
    if len(sys.argv) < 4 or not sys.argv[3].startswith("/"):
        sys.exit("usage: input-relay.py SOCKET PORT /absolute/command [args...]")
    socket_path, port, command = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    pid = os.fork()
    if pid == 0:
        listener.close()
        os.execv(command[0], command)
    threading.Thread(target=serve, args=(listener, socket_path), daemon=True).start()
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    sys.stdout.flush()
    os._exit(128 - code if code < 0 else code)


main()
