# perl_fork: children writing to one pipe, waits, regexes and system.
use strict;
my @kids;
pipe(my $r, my $w) or die "pipe: $!";
for my $i (1 .. 4) {
	my $pid = fork();
	die "fork: $!" unless defined $pid;
	if (!$pid) { close $r; print $w "child $i\n"; exit $i; }
	push @kids, $pid;
}
close $w;
print sort <$r>;
my $sum = 0;
for (@kids) { waitpid($_, 0); $sum += $? >> 8; }
print "statuses $sum\n";
my %h = "foo=1,bar=22,baz=333" =~ /(\w+)=(\d+)/g;
print join(",", map { "$_:$h{$_}" } sort keys %h), "\n";
system("echo from system") == 0 or die;
