#!/usr/bin/python3 -I
# Part of the runner's uid isolation (container/src/uid-sandbox.ts), the fallback where user
# namespaces, and so bubblewrap, are not available: after setpriv has dropped to the job's own uid
# with no-new-privileges, this installs a seccomp filter (libseccomp) and execs the command. The
# filter takes away what only a network namespace would: opening any socket; and kernel interfaces
# ffmpeg never needs that widen an escape (ptrace, io_uring, bpf, namespaces, mounts, keyrings), and
# POSIX message queues, whose /dev/mqueue a rootless host may not let the runner close (uid-sandbox.ts).
# Denied calls fail with EPERM; everything else is allowed.
import errno
import os
import sys

import seccomp

DENIED = [
    "socket", "socketpair", "ptrace", "process_vm_readv", "process_vm_writev", "bpf", "perf_event_open",
    "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register", "keyctl", "add_key", "request_key",
    "mount", "umount2", "pivot_root", "chroot", "unshare", "setns", "open_by_handle_at", "name_to_handle_at",
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "acct", "swapon", "swapoff",
    "reboot", "syslog", "move_mount", "open_tree", "fsopen", "fsmount", "fsconfig", "fspick",
    "mq_open",
]


def main() -> None:
    if len(sys.argv) < 2 or not sys.argv[1].startswith("/"):
        sys.exit("usage: no-network-exec.py /absolute/command [args...]")
    rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    for name in DENIED:
        try:
            rules.add_rule(seccomp.ERRNO(errno.EPERM), name)
        except (RuntimeError, ValueError):
            pass  # not a system call on this architecture or kernel
    rules.load()
    os.execv(sys.argv[1], sys.argv[1:])


main()
