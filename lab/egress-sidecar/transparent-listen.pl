#!/usr/bin/perl
# Part of the egress sidecar TEST DOUBLE. Opens its TPROXY listener, a TCP socket with
# IP_TRANSPARENT (what upstream's `newProxy` sets; Node cannot), bound where upstream binds it
# (-address 127.0.0.3:41209), and hands it to the double across exec: TPROXY_LISTEN_FD names it.
use strict;
use warnings;
use Socket qw(PF_INET SOCK_STREAM SOL_SOCKET SO_REUSEADDR pack_sockaddr_in inet_aton);

use constant { SOL_IP => 0, IP_TRANSPARENT => 19 };    # linux/in.h

my ($address, $port) = ('127.0.0.3', 41209);
$^F = 1023;    # descriptors opened from here on stay open across exec
socket(my $listener, PF_INET, SOCK_STREAM, 0) or die "socket: $!";
setsockopt($listener, SOL_SOCKET, SO_REUSEADDR, 1) or die "SO_REUSEADDR: $!";
setsockopt($listener, SOL_IP, IP_TRANSPARENT, 1) or die "IP_TRANSPARENT (needs CAP_NET_ADMIN): $!";
bind($listener, pack_sockaddr_in($port, inet_aton($address))) or die "bind $address:$port: $!";
listen($listener, 1024) or die "listen: $!";
$ENV{TPROXY_LISTEN_FD} = fileno($listener);
exec { $ARGV[0] } @ARGV or die "exec $ARGV[0]: $!";
