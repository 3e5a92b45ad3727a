/* Packet framing of the gdb remote protocol. */
#include "replay/gdb/packet.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

static int getc_conn(struct gdb_conn *c)
{
	if (c->in_pos == c->in_len) {
		ssize_t n;

		do
			n = read(c->fd, c->in, sizeof(c->in));
		while (n < 0 && errno == EINTR);
		if (n <= 0)
			return -1;
		c->in_pos = 0;
		c->in_len = (size_t)n;
	}
	return c->in[c->in_pos++];
}

bool gdb_take_interrupt(struct gdb_conn *c)
{
	for (;;) {
		struct pollfd p = {.fd = c->fd, .events = POLLIN};
		ssize_t n;

		/* acks of earlier replies are not news */
		while (c->in_pos < c->in_len &&
		       (c->in[c->in_pos] == '+' || c->in[c->in_pos] == '-'))
			c->in_pos++;
		if (c->in_pos < c->in_len) {
			if (c->in[c->in_pos] != 3)
				return false; /* a packet: for gdb_recv */
			c->in_pos++;
			return true;
		}
		if (c->fd < 0 || poll(&p, 1, 0) <= 0)
			return false;
		do
			n = read(c->fd, c->in, sizeof(c->in));
		while (n < 0 && errno == EINTR);
		if (n <= 0) /* a close: gdb_recv sees it next */
			return false;
		c->in_pos = 0;
		c->in_len = (size_t)n;
	}
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int hexval(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

int gdb_recv(struct gdb_conn *c, char *buf, size_t bufsize, size_t *len)
{
	for (;;) {
		unsigned sum = 0;
		size_t n = 0;
		bool overflow = false;
		int ch, h1, h2;

		do
			ch = getc_conn(c);
		while (ch >= 0 && ch != '$');
		if (ch < 0)
			return -1;
		while ((ch = getc_conn(c)) >= 0 && ch != '#') {
			sum += (unsigned)ch;
			if (ch == '}') {
				ch = getc_conn(c);
				if (ch < 0)
					return -1;
				sum += (unsigned)ch;
				ch ^= 0x20;
			}
			if (n + 1 < bufsize)
				buf[n++] = (char)ch;
			else
				overflow = true;
		}
		if (ch < 0)
			return -1;
		h1 = hexval(getc_conn(c));
		h2 = hexval(getc_conn(c));
		buf[n] = 0;
		if (!c->no_ack) {
			bool good = h1 >= 0 && h2 >= 0 &&
				    (unsigned)(h1 * 16 + h2) == (sum & 0xff) &&
				    !overflow;

			if (write_all(c->fd, good ? "+" : "-", 1) < 0)
				return -1;
			if (!good)
				continue;
		}
		if (overflow) { /* too long to be any packet we answer */
			buf[0] = 0;
			n = 0;
		}
		*len = n;
		return 0;
	}
}

int gdb_send_bin(struct gdb_conn *c, const char *data, size_t len)
{
	static const char hexd[] = "0123456789abcdef";
	unsigned sum = 0;
	size_t n = 0;

	c->out[n++] = '$';
	for (size_t i = 0; i < len && n < sizeof(c->out) - 8; i++) {
		char ch = data[i];

		if (ch == '$' || ch == '#' || ch == '}' || ch == '*') {
			c->out[n++] = '}';
			sum += '}';
			ch ^= 0x20;
		}
		c->out[n++] = ch;
		sum += (unsigned char)ch;
	}
	c->out[n++] = '#';
	c->out[n++] = hexd[(sum >> 4) & 15];
	c->out[n++] = hexd[sum & 15];
	for (;;) {
		int ack;

		if (write_all(c->fd, c->out, n) < 0)
			return -1;
		if (c->no_ack)
			return 0;
		ack = getc_conn(c);
		if (ack < 0)
			return -1;
		if (ack == '+')
			return 0;
		if (ack != '-') { /* not an ack: take it as one, keep it */
			c->in_pos--;
			return 0;
		}
	}
}

int gdb_send(struct gdb_conn *c, const char *s)
{
	return gdb_send_bin(c, s, strlen(s));
}

void hex_encode(char *out, const void *data, size_t len)
{
	static const char hexd[] = "0123456789abcdef";
	const uint8_t *d = data;

	for (size_t i = 0; i < len; i++) {
		out[2 * i] = hexd[d[i] >> 4];
		out[2 * i + 1] = hexd[d[i] & 15];
	}
}

int hex_decode(const char *in, void *out, size_t len)
{
	uint8_t *o = out;

	for (size_t i = 0; i < len; i++) {
		int a = hexval(in[2 * i]), b;

		if (a < 0)
			return -1;
		b = hexval(in[2 * i + 1]);
		if (b < 0)
			return -1;
		o[i] = (uint8_t)(a * 16 + b);
	}
	return (int)(2 * len);
}

bool hex_u64(const char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	int d, n = 0;

	while ((d = hexval(*s)) >= 0 && n < 16) {
		x = x * 16 + (unsigned)d;
		s++;
		n++;
	}
	if (!n || hexval(*s) >= 0)
		return false;
	*p = s;
	*v = x;
	return true;
}
