/* One confirmable request, stop-and-wait, on the controller's timers (docs/c-api.md). */
#include <stdint.h>
#include "coapcc.h"

uint64_t now_ns(void);                           /* a monotonic clock, in nanoseconds */
void sleep_until(uint64_t t_ns);                 /* returns at t_ns (at once if past) */
void send_copy(uint32_t copy);                   /* sends the request, copy 0 = original */
int wait_ack(uint64_t until_ns, uint32_t *echo); /* 1: ACK by until_ns (*echo: the copy it
                                                    names, or UINT32_MAX); 0: timed out */

/* 1: acknowledged, 0: given up, -1: an API error. */
int request(const coapcc_algorithm *alg, coapcc_state *st, const coapcc_rng *rng) {
    coapcc_exchange ex;
    coapcc_fired f;
    uint64_t at, wake, timer, sent_ns[256];
    uint32_t echo;
    int32_t s;
    if (coapcc_earliest_send(alg, st, now_ns(), &at) != COAPCC_OK) return -1;
    sleep_until(at); /* a rate-based algorithm may hold the original */
    sent_ns[0] = now_ns();
    if (coapcc_exchange_start(alg, st, &ex, sent_ns[0], 0, rng, &timer) != COAPCC_OK) return -1;
    send_copy(0);
    for (;;) {
        if (coapcc_exchange_wake_at(&ex, &wake) != COAPCC_OK) return -1;
        if (wait_ack(wake, &echo)) {
            s = echo == UINT32_MAX ? coapcc_exchange_ack(alg, st, &ex, now_ns())
                : coapcc_exchange_ack_echo(alg, st, &ex, now_ns(), echo, sent_ns[echo & 255]);
            return s == COAPCC_OK ? 1 : -1;
        }
        if (coapcc_exchange_fire(alg, st, &ex, now_ns(), rng, &f) != COAPCC_OK) return -1;
        if (f.kind == COAPCC_FIRED_GAVE_UP) return 0;
        if (f.kind == COAPCC_FIRED_SENT) {
            sent_ns[f.copy & 255] = now_ns();
            send_copy(f.copy);
        }
    }
}
