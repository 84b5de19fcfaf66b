#!/usr/bin/perl
# Inside a job's sandbox (bubblewrap: a network namespace of its own, with only loopback), so that
# ffmpeg can read its inputs by range without any network: listens on 127.0.0.1:PORT, carries each
# connection to the runner's input socket (a Unix socket bound into the sandbox), and runs the
# command. The runner fetches from the origin only the ranges ffmpeg asks for
# (container/src/input-server.ts). Exits with the command's status (128+N when a signal ended it).
# Perl, from perl-base (Essential in Debian): it starts in a few milliseconds, which every
# sandboxed command with streamed inputs pays.
use strict;

# Perl's Socket and POSIX modules took 15 of the relay's 19 ms to start, paid by every sandboxed
# command reading a streamed input: the few socket numbers it needs are written here instead. They
# are Linux's, the same on x86-64 and arm64 (test/runner/input-relay.test.ts checks them against Socket).
sub AF_UNIX () { 1 }
sub AF_INET () { 2 }
sub SOCK_STREAM () { 1 }
sub SOL_SOCKET () { 1 }
sub SO_REUSEADDR () { 2 }
sub SO_SNDBUF () { 7 }
sub SO_RCVBUF () { 8 }

# Small buffers on purpose: every byte buffered between the runner and ffmpeg is a byte the runner
# fetched that ffmpeg may never read (it seeks away), so the path holds little more than ffmpeg's reads.
my $BUFFER_BYTES = 64 * 1024;

# struct sockaddr_in for 127.0.0.1:port, and struct sockaddr_un (family in host order, then the rest).
sub loopback_address { pack('S n C4 x8', AF_INET, $_[0], 127, 0, 0, 1) }
sub unix_address { pack('S Z108', AF_UNIX, $_[0]) }

my ($socket_path, $port, @command) = @ARGV;
die "usage: input-relay.pl SOCKET PORT /absolute/command [args...]\n" unless defined $port && @command && $command[0] =~ m{^/};

socket(my $listener, AF_INET, SOCK_STREAM, 0) or die "socket: $!\n";
setsockopt($listener, SOL_SOCKET, SO_REUSEADDR, 1);
bind($listener, loopback_address($port)) or die "bind: $!\n";
listen($listener, 64) or die "listen: $!\n";

my $command_pid = fork() // die "fork: $!\n";
if ($command_pid == 0) {
    close($listener);
    exec { $command[0] } @command or exit(127);
}

# Connections are accepted and carried by processes of their own; this one waits for the command.
# It is the sandbox's pid 1: when it exits, every process left in the sandbox ends with it.
my $acceptor = fork() // die "fork: $!\n";
if ($acceptor == 0) {
    $SIG{CHLD} = 'IGNORE';
    while (accept(my $client, $listener)) {
        my $carrier = fork();
        next unless defined $carrier;
        if ($carrier == 0) {
            close($listener);
            carry($client);
            exit(0);
        }
        close($client);
    }
    exit(0);
}
close($listener);
waitpid($command_pid, 0);
my $status = $?;
exit(($status & 127) ? 128 + ($status & 127) : $status >> 8);

sub carry {
    my ($client) = @_;
    $SIG{PIPE} = 'IGNORE';
    socket(my $upstream, AF_UNIX, SOCK_STREAM, 0) or return;
    connect($upstream, unix_address($socket_path)) or return;
    setsockopt($client, SOL_SOCKET, SO_SNDBUF, $BUFFER_BYTES);
    setsockopt($upstream, SOL_SOCKET, SO_RCVBUF, $BUFFER_BYTES);
    my $back = fork() // return;
    if ($back == 0) {
        pump($upstream, $client);
        exit(0);
    }
    pump($client, $upstream);
    waitpid($back, 0);
}

# One direction until its end; the other side then learns this one is done.
sub pump {
    my ($from, $to) = @_;
    my $buffer;
    while (1) {
        my $n = sysread($from, $buffer, $BUFFER_BYTES);
        last unless $n;
        my $offset = 0;
        while ($offset < $n) {
            my $written = syswrite($to, $buffer, $n - $offset, $offset);
            last unless defined $written;
            $offset += $written;
        }
        last if $offset < $n;
    }
    shutdown($to, 1);
    shutdown($from, 0);
}
