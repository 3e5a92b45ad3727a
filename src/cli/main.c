#include "cli/cli.h"
#include "core/exitcodes.h"
#include "core/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char usage[] =
	"usage: mrr VERB [OPTIONS] ...\n"
	"\n"
	"mrr records a Linux x86-64 program and replays it exactly, including\n"
	"its memory syscalls, without hardware performance counters.\n"
	"\n"
	"verbs:\n"
	"  record [-o DIR] [-n] [--sync] [--] PROG [ARGS...]\n"
	"                       run PROG and write a trace\n"
	"  replay [-q] [-f] [--allow-foreign] [TRACE]\n"
	"                       run the recorded program again from TRACE\n"
	"  dump [OPTIONS] [TRACE] [EVENTS]\n"
	"                       print the events of TRACE\n"
	"  ls                   list the traces in the default directory\n"
	"\n"
	"TRACE defaults to the latest trace in $MRR_TRACE_DIR, else\n"
	"${XDG_DATA_HOME:-$HOME/.local/share}/mrr. `mrr VERB --help` says "
	"more.\n"
	"\n"
	"exit codes:\n"
	"  0   success (record: the program's own status; 128+N if signal N\n"
	"      killed it)\n"
	"  64  usage error\n"
	"  65  trace unreadable, incomplete or corrupt\n"
	"  66  program or trace not found, or not executable\n"
	"  69  recording stopped on something mrr does not support\n"
	"  70  replay diverged from the recording\n"
	"  71  the system refused an operation mrr needs (ptrace, fork)\n"
	"  73  the trace could not be written (disk full, permissions)\n"
	"  74  replay could not echo the program's output (disk full, I/O "
	"error)\n"
	"  77  replay refused another user's trace (see --allow-foreign)\n";

int usage_error(const char *verb, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (verb)
		mrr_err("%s; see 'mrr %s --help'", msg, verb);
	else
		mrr_err("%s; see 'mrr --help'", msg);
	return MRR_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	const char *verb;

	if (argc < 2)
		return usage_error(NULL, "no verb given");
	verb = argv[1];
	if (!strcmp(verb, "--help") || !strcmp(verb, "-h") ||
	    !strcmp(verb, "help")) {
		fputs(usage, stdout);
		return MRR_EXIT_OK;
	}
	if (!strcmp(verb, "--version") || !strcmp(verb, "-V")) {
		printf("mrr %s\n", MRR_VERSION);
		return MRR_EXIT_OK;
	}
	if (!strcmp(verb, "record"))
		return cmd_record(argc - 1, argv + 1);
	if (!strcmp(verb, "replay"))
		return cmd_replay(argc - 1, argv + 1);
	if (!strcmp(verb, "dump"))
		return cmd_dump(argc - 1, argv + 1);
	if (!strcmp(verb, "ls"))
		return cmd_ls(argc - 1, argv + 1);
	if (verb[0] == '-')
		return usage_error(NULL, "unknown option %s", verb);
	return usage_error(NULL, "unknown verb %s", verb);
}
