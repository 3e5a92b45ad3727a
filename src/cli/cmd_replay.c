#include "cli/cli.h"
#include "cli/trust.h"
#include "core/exitcodes.h"
#include "core/log.h"
#include "replay/cleanup.h"
#include "replay/gdb/server.h"
#include "replay/replayer.h"

#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char help[] =
	"usage: mrr replay [-q] [-f] [--allow-foreign] [-g | -s PORT]\n"
	"                  [-e EVENT] [TRACE]\n"
	"\n"
	"Runs the recorded program again from TRACE (default: the latest\n"
	"trace), feeding it the recorded inputs and checking every event.\n"
	"The program's output to stdout/stderr is shown again.\n"
	"\n"
	"  -q, --quiet   do not echo the program's output\n"
	"  -f, --force   replay the valid prefix of an incomplete trace\n"
	"      --divergence-json FILE  also write a divergence report to FILE\n"
	"      --stall-timeout SECONDS  report the replay stuck when a task\n"
	"                    it waits for stays blocked this long (default\n"
	"                    10; 0: never); a note when it runs its own code\n"
	"                    6 times as long without reaching its event\n"
	"  -g, --gdb     debug the replay in gdb (from PATH), stopped at the\n"
	"                    program's first instruction\n"
	"  -s, --server PORT  serve the replay to gdb on 127.0.0.1:PORT\n"
	"                    (gdb: target extended-remote :PORT)\n"
	"  -e, --goto EVENT  with -g/-s: start stopped before EVENT\n"
	"  -p, --pid PID     with -g/-s: debug recorded process PID\n"
	"      --onexec NAME  with -g/-s: debug the first process that\n"
	"                    execs a program named NAME\n"
	"      --allow-foreign  replay a trace that belongs to another user\n"
	"                    (or is reached through their latest-trace\n"
	"                    link): it runs their program as you\n"
	"\n"
	"Exit status: 0 the recording was reproduced; 64 usage; 65 trace\n"
	"unreadable, incomplete or inconsistent; 66 trace not found; 70\n"
	"divergence (or the replay was stuck); 71 the -s port is in use; 77 "
	"the trace belongs to\n"
	"another user.\n";

int cmd_replay(int argc, char **argv)
{
	static const struct option opts[] = {
		{"quiet", no_argument, 0, 'q'},
		{"force", no_argument, 0, 'f'},
		{"divergence-json", required_argument, 0, 'j'},
		{"allow-foreign", no_argument, 0, 'F'},
		{"stall-timeout", required_argument, 0, 'w'},
		{"gdb", no_argument, 0, 'g'},
		{"server", required_argument, 0, 's'},
		{"goto", required_argument, 0, 'e'},
		{"pid", required_argument, 0, 'p'},
		{"onexec", required_argument, 0, 'x'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	struct replay_opts o = {0};
	struct gdb_opts g = {0};
	bool serve = false;
	char dir[PATH_MAX], abs[PATH_MAX];
	bool allow_foreign = false;
	int c, ret;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "qfhgs:e:p:", opts, NULL)) != -1) {
		switch (c) {
		case 'q':
			o.quiet = true;
			break;
		case 'f':
			o.force = true;
			break;
		case 'j':
			o.divergence_json = optarg;
			break;
		case 'F':
			allow_foreign = true;
			break;
		case 'w': {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (*optarg == 0 || *end || v < 0 || v > 86400)
				return usage_error("replay",
						   "--stall-timeout takes "
						   "seconds, 0 to 86400");
			o.stall_timeout_s = v ? (int)v : -1;
			break;
		}
		case 'g':
			g.run_gdb = serve = true;
			break;
		case 's': {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (*optarg == 0 || *end || v < 1 || v > 65535)
				return usage_error(
					"replay",
					"-s takes a port, 1 to 65535");
			g.port = (int)v;
			serve = true;
			break;
		}
		case 'e': {
			char *end;
			unsigned long long v = strtoull(optarg, &end, 10);

			if (*optarg == 0 || *end || *optarg == '-')
				return usage_error(
					"replay",
					"--goto takes an event number");
			g.goto_event = v;
			break;
		}
		case 'p': {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (*optarg == 0 || *end || v < 1 || v > 4194304)
				return usage_error("replay",
						   "-p takes a process id");
			g.pid = (pid_t)v;
			break;
		}
		case 'x':
			if (!*optarg || strchr(optarg, '/'))
				return usage_error("replay",
						   "--onexec takes a program "
						   "name");
			g.onexec = optarg;
			break;
		case 'h':
			fputs(help, stdout);
			return MRR_EXIT_OK;
		default:
			return usage_error("replay", "unknown option %s",
					   argv[optind - 1]);
		}
	}
	if (argc - optind > 1)
		return usage_error("replay", "too many arguments");
	if (resolve_trace_arg(optind < argc ? argv[optind] : NULL, dir,
			      sizeof(dir)) < 0)
		return MRR_EXIT_NOINPUT;
	ret = replay_preflight(dir, allow_foreign, o.force);
	if (ret)
		return ret;
	/* the replayed program runs in its recorded cwd: paths into the trace
	 * must not depend on ours */
	if (realpath(dir, abs))
		o.trace_dir = abs;
	else
		o.trace_dir = dir;
	replay_cleanup_install();
	if (g.run_gdb && g.port)
		return usage_error("replay", "-g and -s exclude each other");
	if ((g.goto_event || g.pid || g.onexec) && !serve)
		return usage_error("replay", "--goto, -p and --onexec need -g "
					     "or -s");
	if (g.pid && g.onexec)
		return usage_error("replay", "-p and --onexec exclude each "
					     "other");
	if (serve)
		return gdb_serve(&o, &g);
	return mrr_replay(&o);
}
