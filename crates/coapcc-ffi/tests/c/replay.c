/*
 * `coapcc replay` in C, through coapcc.h only: runs a replay script (standard input) on one
 * algorithm, one destination, one exchange at a time, and prints the same JSON lines.
 *
 *   replay ALGORITHM SEED [KEY=VALUE ...] < script
 *
 * The driver is the one of coapcc-core's `StopAndWait` harness: the application sends,
 * time advances (every wake-up due up to and including the new time fires in order: a held
 * original leaves, an expired timer retransmits, holds the copy or gives up) and
 * acknowledgements arrive. Exit status: 0, or 2 with a message on a bad argument or line.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coapcc.h"

_Static_assert(sizeof(coapcc_config) == COAPCC_CONFIG_SIZE, "coapcc_config size");
_Static_assert(sizeof(coapcc_algorithm) == COAPCC_ALGORITHM_SIZE, "coapcc_algorithm size");
_Static_assert(sizeof(coapcc_state) == COAPCC_STATE_SIZE, "coapcc_state size");
_Static_assert(sizeof(coapcc_exchange) == COAPCC_EXCHANGE_SIZE, "coapcc_exchange size");

enum phase { IDLE, HELD, IN_FLIGHT };

struct harness {
    coapcc_algorithm alg;
    coapcc_state st;
    coapcc_exchange ex;
    coapcc_pcg pcg;
    coapcc_rng rng;
    uint64_t now_ns;
    uint32_t next_exchange;
    enum phase phase;
    uint32_t exchange;
    uint64_t held_until_ns;
    uint64_t sent_ns[256];
};

static void fail(const char *what, int32_t status) {
    fprintf(stderr, "%s: %s\n", what, coapcc_status_message(status));
    exit(2);
}

static void check(const char *what, int32_t status) {
    if (status != COAPCC_OK) fail(what, status);
}

/* Milliseconds exact to the nanosecond, as coapcc replay writes them: "400.0", "0.5". */
static void print_ms(uint64_t ns) {
    uint64_t whole = ns / 1000000, frac = ns % 1000000;
    int width = 6;
    if (frac == 0) {
        printf("%" PRIu64 ".0", whole);
        return;
    }
    while (frac % 10 == 0) {
        frac /= 10;
        width--;
    }
    printf("%" PRIu64 ".%0*" PRIu64, whole, width, frac);
}

static void emit_transmit(const struct harness *h, uint32_t copy, uint64_t timer_ns) {
    printf("{\"t_ms\":");
    print_ms(h->now_ns);
    printf(",\"event\":\"transmit\",\"exchange\":%" PRIu32 ",\"copy\":%" PRIu32 ",\"timer_ms\":", h->exchange, copy);
    print_ms(timer_ns);
    printf("}\n");
}

static void transmit_original(struct harness *h) {
    uint64_t timer_ns;
    check("start", coapcc_exchange_start(&h->alg, &h->st, &h->ex, h->now_ns, 0, &h->rng, &timer_ns));
    h->sent_ns[0] = h->now_ns;
    h->phase = IN_FLIGHT;
    emit_transmit(h, 0, timer_ns);
}

/* The next wake-up, if any. */
static int next_deadline(struct harness *h, uint64_t *at_ns) {
    switch (h->phase) {
    case HELD: *at_ns = h->held_until_ns; return 1;
    case IN_FLIGHT: check("wake_at", coapcc_exchange_wake_at(&h->ex, at_ns)); return 1;
    default: return 0;
    }
}

static void fire(struct harness *h) {
    coapcc_fired f;
    if (h->phase == HELD) {
        transmit_original(h);
        return;
    }
    check("fire", coapcc_exchange_fire(&h->alg, &h->st, &h->ex, h->now_ns, &h->rng, &f));
    if (f.kind == COAPCC_FIRED_GAVE_UP) {
        h->phase = IDLE;
        printf("{\"t_ms\":");
        print_ms(h->now_ns);
        printf(",\"event\":\"give_up\",\"exchange\":%" PRIu32 "}\n", h->exchange);
    } else if (f.kind == COAPCC_FIRED_SENT) {
        h->sent_ns[f.copy & 255] = h->now_ns;
        emit_transmit(h, f.copy, f.timer_ns);
    }
}

static void advance_to(struct harness *h, uint64_t to_ns) {
    uint64_t at;
    while (next_deadline(h, &at) && at <= to_ns) {
        if (at > h->now_ns) h->now_ns = at;
        fire(h);
    }
    if (to_ns > h->now_ns) h->now_ns = to_ns;
}

/* `send`: 0, or -1 while an exchange is outstanding. */
static int send_request(struct harness *h) {
    uint64_t at;
    if (h->phase != IDLE) return -1;
    h->exchange = h->next_exchange++;
    check("earliest_send", coapcc_earliest_send(&h->alg, &h->st, h->now_ns, &at));
    if (at <= h->now_ns) {
        transmit_original(h);
    } else {
        h->phase = HELD;
        h->held_until_ns = at;
    }
    return 0;
}

/* `ack` (copy < 0) or `ack copy K`: 0, or -1 when nothing can be acknowledged. */
static int ack(struct harness *h, int copy) {
    uint64_t rto_ns;
    bool has_rto;
    int32_t s;
    if (h->phase != IN_FLIGHT) return -1;
    s = copy < 0 ? coapcc_exchange_ack(&h->alg, &h->st, &h->ex, h->now_ns)
                 : coapcc_exchange_ack_echo(&h->alg, &h->st, &h->ex, h->now_ns, (uint32_t)copy,
                                            h->sent_ns[copy]);
    if (s == COAPCC_E_COPY_NOT_SENT) return -1;
    check("ack", s);
    h->phase = IDLE;
    check("rto", coapcc_rto(&h->alg, &h->st, h->now_ns, &rto_ns, &has_rto));
    printf("{\"t_ms\":");
    print_ms(h->now_ns);
    printf(",\"event\":\"ack\",\"exchange\":%" PRIu32 ",\"copy\":", h->exchange);
    if (copy < 0) printf("null"); else printf("%d", copy);
    printf(",\"rto_ms\":");
    if (has_rto) print_ms(rto_ns); else printf("null");
    printf("}\n");
    return 0;
}

/* A non-negative decimal number of milliseconds with up to six decimals, in nanoseconds. */
static int parse_ms(const char *s, uint64_t *ns) {
    uint64_t whole = 0, frac = 0;
    int int_digits = 0, frac_digits = 0;
    for (; *s >= '0' && *s <= '9'; s++, int_digits++) {
        if (whole > (UINT64_MAX - 9) / 10) return -1;
        whole = whole * 10 + (uint64_t)(*s - '0');
    }
    if (*s == '.') {
        for (s++; *s >= '0' && *s <= '9'; s++, frac_digits++) {
            if (frac_digits == 6) return -1;
            frac = frac * 10 + (uint64_t)(*s - '0');
        }
    }
    if (*s != '\0' || (int_digits == 0 && frac_digits == 0)) return -1;
    for (; frac_digits < 6; frac_digits++) frac *= 10;
    if (whole > UINT64_MAX / 1000000 || whole * 1000000 > UINT64_MAX - frac) return -1;
    *ns = whole * 1000000 + frac;
    return 0;
}

/* Runs one script line; 0, or -1 when it is malformed or cannot run now. */
static int run_line(struct harness *h, char *line) {
    char *words[4] = {0}, *hash = strchr(line, '#'), *w;
    int n = 0;
    uint64_t ns;
    if (hash) *hash = '\0';
    for (w = strtok(line, " \t\r\n"); w && n < 4; w = strtok(NULL, " \t\r\n")) words[n++] = w;
    if (n == 0) return 0;
    if (strcmp(words[0], "send") == 0 && n == 1) {
        advance_to(h, h->now_ns);
        return send_request(h);
    }
    if (strcmp(words[0], "wait") == 0 && n == 2) {
        if (parse_ms(words[1], &ns) != 0) return -1;
        advance_to(h, ns > UINT64_MAX - h->now_ns ? UINT64_MAX : h->now_ns + ns);
        return 0;
    }
    if (strcmp(words[0], "ack") == 0 && n == 1) {
        advance_to(h, h->now_ns);
        return ack(h, -1);
    }
    if (strcmp(words[0], "ack") == 0 && n == 3 && strcmp(words[1], "copy") == 0) {
        char *end;
        long k = strtol(words[2], &end, 10);
        if (*end != '\0' || k < 0 || k > 255) return -1;
        advance_to(h, h->now_ns);
        return ack(h, (int)k);
    }
    return -1;
}

int main(int argc, char **argv) {
    static struct harness h;
    coapcc_config cfg;
    char line[1024];
    int number = 0, i;
    if (argc < 3) {
        fprintf(stderr, "usage: %s ALGORITHM SEED [KEY=VALUE ...] < script\n", argv[0]);
        return 2;
    }
    if (coapcc_config_preset(&cfg, argv[1]) != COAPCC_OK) {
        fprintf(stderr, "algorithm `%s`: %s\n", argv[1], coapcc_config_error(&cfg));
        return 2;
    }
    for (i = 3; i < argc; i++) {
        if (coapcc_config_set(&cfg, argv[i]) != COAPCC_OK) {
            fprintf(stderr, "algorithm `%s`: %s\n", argv[1], coapcc_config_error(&cfg));
            return 2;
        }
    }
    if (coapcc_algorithm_build(&h.alg, &cfg) != COAPCC_OK) {
        fprintf(stderr, "algorithm `%s`: %s\n", argv[1], coapcc_config_error(&cfg));
        return 2;
    }
    check("state", coapcc_state_init(&h.st, &h.alg));
    check("seed", coapcc_pcg_seed(&h.pcg, strtoull(argv[2], NULL, 10)));
    h.rng.next_u64 = coapcc_pcg_next_u64;
    h.rng.ctx = &h.pcg;
    h.next_exchange = 1;
    while (fgets(line, sizeof line, stdin)) {
        number++;
        if (run_line(&h, line) != 0) {
            fflush(stdout);
            fprintf(stderr, "line %d: cannot run this line here\n", number);
            return 2;
        }
    }
    return 0;
}
