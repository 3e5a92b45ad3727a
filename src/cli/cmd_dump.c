#include "cli/cli.h"
#include "core/events.h"
#include "core/exitcodes.h"
#include "core/log.h"
#include "mrr/trace.h"
#include "syscalls/table.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

static const char help[] =
	"usage: mrr dump [-f] [TRACE]\n"
	"\n"
	"Prints the events of TRACE (default: the latest trace), one per "
	"line.\n"
	"  -f, --force   read the valid prefix of an incomplete trace\n";

static void print_event(const struct mrr_event *ev)
{
	const char *name;

	printf("%" PRIu64 " %d ", ev->seq, ev->tid);
	switch (ev->kind) {
	case MRR_EV_SYSCALL:
		name = mrr_syscall_name(ev->nr);
		printf("syscall %s(%" PRIx64 ", %" PRIx64 ", %" PRIx64
		       ") = %" PRId64,
		       name ? name : "?", ev->args[0], ev->args[1],
		       ev->args[2], ev->result);
		break;
	case MRR_EV_EXEC:
		printf("exec");
		break;
	case MRR_EV_SIGNAL:
		printf("signal %" PRId64, ev->nr);
		break;
	case MRR_EV_RDTSC:
		printf("rdtsc %" PRIu64, ev->args[0]);
		break;
	case MRR_EV_EXIT:
		printf("exit status 0x%" PRIx64, ev->result);
		break;
	default:
		printf("kind %u", ev->kind);
	}
	printf(" writes=%u\n", ev->nwrites);
}

int cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{"force", no_argument, 0, 'f'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	char dir[PATH_MAX], msg[512];
	mrr_trace_reader *r;
	struct mrr_event ev;
	unsigned flags = 0;
	int c, err;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "fh", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			flags |= MRR_READER_FORCE;
			break;
		case 'h':
			fputs(help, stdout);
			return MRR_EXIT_OK;
		default:
			return usage_error("dump", "unknown option %s",
					   argv[optind - 1]);
		}
	}
	if (resolve_trace_arg(optind < argc ? argv[optind] : NULL, dir,
			      sizeof(dir)) < 0)
		return MRR_EXIT_NOINPUT;
	err = mrr_trace_open(dir, flags, &r, msg, sizeof(msg));
	if (err) {
		mrr_err("%s", msg);
		return err == -ENOENT ? MRR_EXIT_NOINPUT : MRR_EXIT_DATAERR;
	}
	while ((err = mrr_trace_next(r, &ev)) > 0)
		print_event(&ev);
	if (err < 0) {
		mrr_err("%s", mrr_trace_error_message(r));
		mrr_trace_close(r);
		return MRR_EXIT_DATAERR;
	}
	mrr_trace_close(r);
	return MRR_EXIT_OK;
}

int cmd_ls(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	mrr_err("ls is not implemented yet");
	return MRR_EXIT_USAGE;
}
