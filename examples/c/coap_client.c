/*
 * A CoAP client in C on the congestion controllers of coapcc.h (docs/c-api.md, "A CoAP
 * client in C"): one confirmable GET or PUT over a POSIX UDP socket, retransmitted and given
 * up on the timers of the chosen algorithm, with its own minimal RFC 7252 message encoding.
 *
 *   coap_client [-a ALGORITHM] [-s KEY=VALUE]... [-m GET|PUT] [-e PAYLOAD] [-B SECONDS] [-v]
 *               coap://IPV4[:PORT]/PATH
 *
 * Prints the response code (`2.05`) on a line, then the payload and a newline. With -v, every
 * copy sent and the datagram answering it go to standard error. Exit status: 0 with a
 * response, 1 when the request was given up, reset or answered by nothing in time, 2 on a
 * bad argument.
 */
#define _POSIX_C_SOURCE 200809L

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "coapcc.h"

/* RFC 7252 §3: message types and the codes used here; §5.10: option numbers. */
enum { CON = 0, NON = 1, ACK = 2, RST = 3 };
enum { CODE_GET = 0x01, CODE_PUT = 0x03 };
enum { OPT_URI_PATH = 11, OPT_URI_QUERY = 15, OPT_TRANSMISSION_COUNT = 65020 /* docs/algorithms.md, "echo" */ };
enum { MAX_DATAGRAM = 1152 /* RFC 7252 §4.6 */, TOKEN_BYTES = 4, NO_ECHO = UINT32_MAX };

static int verbose;

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int usage(const char *why) {
    fprintf(stderr,
            "coap_client: %s\nusage: coap_client [-a ALGORITHM] [-s KEY=VALUE]... [-m GET|PUT] "
            "[-e PAYLOAD] [-B SECONDS] [-v] coap://IPV4[:PORT]/PATH\n",
            why);
    return 2;
}

/* Appends an option header (RFC 7252 §3.1: 4-bit delta and length, extended by 13 or 269). */
static size_t put_option(uint8_t *out, size_t at, uint32_t delta, size_t len) {
    uint8_t *head = &out[at++];
    uint32_t field[2] = {delta, (uint32_t)len};
    uint8_t nibble[2];
    int i;
    for (i = 0; i < 2; i++) {
        if (field[i] < 13) {
            nibble[i] = (uint8_t)field[i];
        } else if (field[i] < 269) {
            nibble[i] = 13;
            out[at++] = (uint8_t)(field[i] - 13);
        } else {
            nibble[i] = 14;
            out[at++] = (uint8_t)((field[i] - 269) >> 8);
            out[at++] = (uint8_t)(field[i] - 269);
        }
    }
    *head = (uint8_t)(nibble[0] << 4 | nibble[1]);
    return at;
}

/* The request's copy `copy`: the token ends with the copy number when the algorithm asks for a
 * token echo, a transmission-count option carries it when it asks for an option echo. */
struct request {
    uint8_t code, token[TOKEN_BYTES];
    uint16_t mid;
    uint32_t echo_mode;
    const char *path, *payload;
};

static size_t encode(const struct request *r, uint32_t copy, uint8_t *out) {
    size_t at = 0, len, payload_len = r->payload ? strlen(r->payload) : 0;
    const char *segment = r->path, *end, *query = strchr(r->path, '?');
    uint32_t last = 0;
    int tkl = TOKEN_BYTES + (r->echo_mode == COAPCC_ECHO_TOKEN);
    out[at++] = (uint8_t)(1 << 6 | CON << 4 | tkl);
    out[at++] = r->code;
    out[at++] = (uint8_t)(r->mid >> 8);
    out[at++] = (uint8_t)r->mid;
    memcpy(&out[at], r->token, TOKEN_BYTES);
    at += TOKEN_BYTES;
    if (r->echo_mode == COAPCC_ECHO_TOKEN) out[at++] = (uint8_t)copy;
    /* One Uri-Path option per segment, one Uri-Query per argument (RFC 7252 §6.4). */
    while (*segment) {
        uint32_t number = query && segment > query ? OPT_URI_QUERY : OPT_URI_PATH;
        end = strpbrk(segment, number == OPT_URI_PATH ? "/?" : "&");
        len = end ? (size_t)(end - segment) : strlen(segment);
        at = put_option(out, at, number - last, len);
        memcpy(&out[at], segment, len);
        at += len;
        last = number;
        segment += len + (end != NULL);
    }
    if (r->echo_mode == COAPCC_ECHO_OPTION) { /* a one-byte uint (RFC 7252 §3.2); 0 is empty */
        at = put_option(out, at, OPT_TRANSMISSION_COUNT - last, copy ? 1 : 0);
        if (copy) out[at++] = (uint8_t)copy;
    }
    if (payload_len) {
        out[at++] = 0xFF;
        memcpy(&out[at], r->payload, payload_len);
        at += payload_len;
    }
    return at;
}

/* A parsed message: what this client needs of it. */
struct message {
    int type, code, tkl;
    uint16_t mid;
    const uint8_t *token, *payload;
    size_t payload_len;
    int64_t transmission_count; /* -1 without the option */
};

/* Reads one option field's extension (RFC 7252 §3.1); -1 on a format error. */
static int64_t extended(uint8_t nibble, const uint8_t *d, size_t n, size_t *at) {
    if (nibble < 13) return nibble;
    if (nibble == 13 && *at + 1 <= n) return 13 + d[(*at)++];
    if (nibble == 14 && *at + 2 <= n) {
        *at += 2;
        return 269 + (d[*at - 2] << 8 | d[*at - 1]);
    }
    return -1;
}

/* 0 and `m` filled for a well-formed CoAP message, -1 otherwise. */
static int parse(const uint8_t *d, size_t n, struct message *m) {
    size_t at;
    int64_t number = 0, delta, len, i;
    if (n < 4 || d[0] >> 6 != 1 || (d[0] & 15) > 8 || n < 4u + (d[0] & 15)) return -1;
    m->type = d[0] >> 4 & 3;
    m->tkl = d[0] & 15;
    m->code = d[1];
    m->mid = (uint16_t)(d[2] << 8 | d[3]);
    m->token = &d[4];
    m->payload = NULL;
    m->payload_len = 0;
    m->transmission_count = -1;
    for (at = 4u + (size_t)m->tkl; at < n;) {
        if (d[at] == 0xFF) {
            if (at + 1 == n) return -1; /* a marker with no payload (§3) */
            m->payload = &d[at + 1];
            m->payload_len = n - at - 1;
            return 0;
        }
        i = d[at++];
        delta = extended((uint8_t)(i >> 4), d, n, &at);
        len = extended((uint8_t)(i & 15), d, n, &at);
        if (delta < 0 || len < 0 || at + (size_t)len > n) return -1;
        number += delta;
        if (number == OPT_TRANSMISSION_COUNT && len <= 4)
            for (m->transmission_count = 0, i = 0; i < len; i++)
                m->transmission_count = m->transmission_count << 8 | d[at + (size_t)i];
        at += (size_t)len;
    }
    return 0;
}

/* The copy an acknowledgement names, or NO_ECHO (RFC 7252 §5.3.2: tokens match whole). */
static uint32_t echoed_copy(const struct request *r, const struct message *m, uint32_t copies) {
    int64_t copy = -1;
    if (r->echo_mode == COAPCC_ECHO_TOKEN && m->tkl == TOKEN_BYTES + 1) copy = m->token[TOKEN_BYTES];
    if (r->echo_mode == COAPCC_ECHO_OPTION) copy = m->transmission_count;
    return copy >= 0 && copy < copies ? (uint32_t)copy : NO_ECHO;
}

static int token_matches(const struct request *r, const struct message *m) {
    int tkl = TOKEN_BYTES + (r->echo_mode == COAPCC_ECHO_TOKEN);
    return m->tkl == tkl && memcmp(m->token, r->token, TOKEN_BYTES) == 0;
}

/* Waits for a datagram until `until_ns`: its length, 0 on time-out, -1 on an error. */
static ssize_t receive(int fd, uint64_t until_ns, uint8_t *buf) {
    struct pollfd p = {fd, POLLIN, 0};
    uint64_t now, wait_ms;
    int r;
    for (;;) {
        now = now_ns();
        if (now >= until_ns) return 0;
        wait_ms = (until_ns - now + 999999) / 1000000; /* rounded up: never wakes early */
        r = poll(&p, 1, wait_ms > 60000 ? 60000 : (int)wait_ms);
        if (r < 0 && errno != EINTR) return -1;
        if (r > 0) return recv(fd, buf, MAX_DATAGRAM, 0);
    }
}

static void send_empty_ack(int fd, uint16_t mid) {
    uint8_t ack[4] = {1 << 6 | ACK << 4, 0, (uint8_t)(mid >> 8), (uint8_t)mid};
    if (send(fd, ack, sizeof ack, 0) < 0) perror("send");
}

static int print_response(const struct message *m) {
    printf("%d.%02d\n", m->code >> 5, m->code & 31);
    if (m->payload_len) fwrite(m->payload, 1, m->payload_len, stdout);
    printf("\n");
    return 0;
}

static int check(int32_t status, const char *what) {
    if (status != COAPCC_OK) fprintf(stderr, "coap_client: %s: %s\n", what, coapcc_status_message(status));
    return status != COAPCC_OK;
}

int main(int argc, char **argv) {
    static coapcc_config cfg;
    coapcc_algorithm alg;
    coapcc_state st;
    coapcc_exchange ex;
    coapcc_fired fired;
    coapcc_pcg pcg;
    coapcc_rng rng = {coapcc_pcg_next_u64, &pcg};
    struct request req = {CODE_GET, {0}, 0, COAPCC_ECHO_NONE, "", NULL};
    struct sockaddr_in server = {0};
    struct message m;
    uint8_t out[MAX_DATAGRAM], in[MAX_DATAGRAM];
    uint64_t at_ns, wake_ns, timer_ns, deadline_ns, sent_ns[256], draw;
    uint32_t copy = 0, copies = 0, echo;
    const char *algorithm = "default", *uri = NULL;
    char host[64], *colon;
    double wait_s = 30;
    int i, fd, port = 5683, acked = 0, pending = 1, parsed;
    size_t len;
    ssize_t n;

    if (check(coapcc_pcg_seed(&pcg, now_ns() ^ (uint64_t)getpid() << 32), "seed")) return 2;
    for (i = 1; i + 1 < argc; i++) { /* the algorithm first: its preset is what -s changes */
        if (!strcmp(argv[i], "-a") || !strcmp(argv[i], "--algorithm")) algorithm = argv[i + 1];
        if (strcmp(argv[i], "-v")) i++; /* every other option takes a value */
    }
    if (coapcc_config_preset(&cfg, algorithm) != COAPCC_OK) return usage(coapcc_config_error(&cfg));
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-v")) {
            verbose = 1;
        } else if (i + 1 == argc && !strncmp(argv[i], "coap://", 7)) {
            uri = argv[i] + 7;
        } else if (i + 1 == argc) {
            return usage("the last argument must be a coap:// URI");
        } else if (!strcmp(argv[i], "-a") || !strcmp(argv[i], "--algorithm")) {
            i++;
        } else if (!strcmp(argv[i], "-s") || !strcmp(argv[i], "--set")) {
            if (coapcc_config_set(&cfg, argv[++i]) != COAPCC_OK) return usage(coapcc_config_error(&cfg));
        } else if (!strcmp(argv[i], "-m")) {
            i++;
            if (!strcmp(argv[i], "GET") || !strcmp(argv[i], "get")) req.code = CODE_GET;
            else if (!strcmp(argv[i], "PUT") || !strcmp(argv[i], "put")) req.code = CODE_PUT;
            else return usage("-m takes GET or PUT");
        } else if (!strcmp(argv[i], "-e")) {
            req.payload = argv[++i];
            if (strlen(req.payload) > 1024) return usage("the payload is limited to 1024 bytes");
        } else if (!strcmp(argv[i], "-B")) {
            wait_s = atof(argv[++i]);
            if (!(wait_s > 0 && wait_s < 3600)) return usage("-B takes seconds in (0, 3600)");
        } else {
            return usage("unknown argument");
        }
    }
    if (!uri) return usage("a coap:// URI is needed");
    /* coap://IPV4[:PORT]/PATH: an IPv4 literal only (no name resolution in this example). */
    len = strcspn(uri, ":/");
    if (len == 0 || len >= sizeof host) return usage("the URI needs an IPv4 host");
    memcpy(host, uri, len);
    host[len] = 0;
    uri += len;
    if (*uri == ':') {
        port = (int)strtol(uri + 1, &colon, 10);
        if (port <= 0 || port > 65535 || (*colon && *colon != '/')) return usage("bad port");
        uri = colon;
    }
    req.path = *uri == '/' ? uri + 1 : uri;
    if (strlen(req.path) > 255) return usage("the path is limited to 255 bytes");
    server.sin_family = AF_INET;
    server.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, host, &server.sin_addr) != 1) return usage("the URI needs an IPv4 host");

    if (coapcc_algorithm_build(&alg, &cfg) != COAPCC_OK) return usage(coapcc_config_error(&cfg));
    if (check(coapcc_algorithm_echo_mode(&alg, &req.echo_mode), "echo mode") ||
        check(coapcc_state_init(&st, &alg), "state"))
        return 2;
    draw = coapcc_pcg_next_u64(&pcg);
    req.mid = (uint16_t)draw;
    memcpy(req.token, (uint8_t *)&draw + 2, TOKEN_BYTES); /* random (RFC 7252 §5.3.1) */

    fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&server, sizeof server) < 0) {
        perror("socket");
        return 1;
    }
    deadline_ns = now_ns() + (uint64_t)(wait_s * 1e9);

    /* The stop-and-wait loop of docs/c-api.md, on a socket. */
    if (check(coapcc_earliest_send(&alg, &st, now_ns(), &at_ns), "earliest send")) return 1;
    while (receive(fd, at_ns, in) > 0) {} /* a rate-based algorithm may hold the original */
    len = encode(&req, 0, out);
    sent_ns[0] = now_ns();
    if (check(coapcc_exchange_start(&alg, &st, &ex, sent_ns[0], 0, &rng, &timer_ns), "start")) return 1;
    for (;;) {
        if (pending) { /* copy `copy` leaves now */
            if (send(fd, out, len, 0) < 0) perror("send");
            if (verbose) fprintf(stderr, "copy %" PRIu32 " sent (%zu bytes)\n", copy, len);
            copies = copy + 1;
            pending = 0;
        }
        if (check(coapcc_exchange_wake_at(&ex, &wake_ns), "wake-up")) return 1;
        n = receive(fd, wake_ns, in);
        if (n < 0) {
            perror("recv");
            return 1;
        }
        parsed = n > 0 ? parse(in, (size_t)n, &m) : -1;
        if (parsed == 0 && (m.type == ACK || m.type == RST) && m.mid == req.mid) {
            if (m.type == RST) {
                fprintf(stderr, "coap_client: the server reset the request\n");
                return 1;
            }
            echo = m.code ? echoed_copy(&req, &m, copies) : NO_ECHO; /* an empty ACK has none */
            if (verbose) fprintf(stderr, "ACK, code %d.%02d, echo %" PRIu32 "\n", m.code >> 5, m.code & 31, echo);
            if (echo == NO_ECHO ? check(coapcc_exchange_ack(&alg, &st, &ex, now_ns()), "ack")
                                : check(coapcc_exchange_ack_echo(&alg, &st, &ex, now_ns(), echo, sent_ns[echo]), "ack"))
                return 1;
            if (m.code) return print_response(&m);
            acked = 1; /* an empty ACK: a separate response follows (RFC 7252 §5.2.2) */
            break;
        }
        if (parsed == 0 && m.type != ACK && m.code >> 5 >= 2 && token_matches(&req, &m)) {
            /* a separate response whose empty ACK was lost: it acknowledges the request too */
            if (m.type == CON) send_empty_ack(fd, m.mid);
            if (check(coapcc_exchange_ack(&alg, &st, &ex, now_ns()), "ack")) return 1;
            return print_response(&m);
        }
        if (n > 0) continue; /* anything else is not for this request */
        if (check(coapcc_exchange_fire(&alg, &st, &ex, now_ns(), &rng, &fired), "timer")) return 1;
        if (fired.kind == COAPCC_FIRED_GAVE_UP) {
            fprintf(stderr, "coap_client: gave up after %" PRIu32 " copies\n", copies);
            return 1;
        }
        if (fired.kind == COAPCC_FIRED_SENT) {
            if (fired.copy >= 256) return 1;
            copy = fired.copy;
            len = encode(&req, copy, out);
            sent_ns[copy] = now_ns();
            pending = 1;
        }
    }
    while (acked) { /* the separate response, as a CON or NON with our token */
        n = receive(fd, deadline_ns, in);
        if (n <= 0) break;
        if (parse(in, (size_t)n, &m) == 0 && (m.type == CON || m.type == NON) && token_matches(&req, &m)) {
            if (m.type == CON) send_empty_ack(fd, m.mid);
            return print_response(&m);
        }
    }
    fprintf(stderr, "coap_client: no response within %g s\n", wait_s);
    return 1;
}
