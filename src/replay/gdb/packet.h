/* The gdb remote protocol's framing ($data#cs, acks, escapes) over one
 * connected socket, and hex helpers. Private to src/replay/gdb. */
#ifndef MRR_REPLAY_GDB_PACKET_H
#define MRR_REPLAY_GDB_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GDB_PACKET_MAX 65536

struct gdb_conn {
	int fd;
	bool no_ack; /* QStartNoAckMode accepted */
	uint8_t in[4096];
	size_t in_pos, in_len;
	char out[2 * GDB_PACKET_MAX + 16];
};

/* Reads the next packet into buf (NUL-terminated, escapes undone; its
 * length in *len). A packet with a bad checksum is nacked and skipped;
 * a lone ^C is ignored. Returns 0, or -1 when the peer closed or an I/O
 * error happened. */
int gdb_recv(struct gdb_conn *c, char *buf, size_t bufsize, size_t *len);

/* Whether gdb sent ^C since the last packet: looks at what is already
 * buffered (a ^C often arrives in the same read as the vCont before it),
 * then at the socket without blocking. The ^C is consumed; acks before it
 * are skipped; a packet stays for gdb_recv. */
bool gdb_take_interrupt(struct gdb_conn *c);

/* Sends one packet of len bytes (escaping what must be). Returns 0 or -1. */
int gdb_send_bin(struct gdb_conn *c, const char *data, size_t len);
int gdb_send(struct gdb_conn *c, const char *s);

/* Hex: writes 2*len chars (no NUL) / parses; parse functions return the
 * number of chars used or -1. */
void hex_encode(char *out, const void *data, size_t len);
int hex_decode(const char *in, void *out, size_t len);
/* Parses a hex number at *p, advancing it. Returns false if none. */
bool hex_u64(const char **p, uint64_t *v);

#endif
