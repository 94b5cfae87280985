/*
 * Runs the stop-and-wait loop of docs/c-api.md (stop_and_wait.c) on a simulated clock and
 * link: the first `lost` copies of each request are lost, the others are acknowledged
 * `rtt_ns` later with their copy number echoed. Prints every copy sent and each outcome.
 *
 *   stop_and_wait ALGORITHM LOST,LOST,... [KEY=VALUE ...]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coapcc.h"

int request(const coapcc_algorithm *alg, coapcc_state *st, const coapcc_rng *rng);

static uint64_t clock_ns, ack_at_ns = UINT64_MAX, rtt_ns = 100000000;
static uint32_t lost, ack_copy;

uint64_t now_ns(void) { return clock_ns; }

void sleep_until(uint64_t t_ns) {
    if (t_ns > clock_ns) clock_ns = t_ns;
}

void send_copy(uint32_t copy) {
    printf("%" PRIu64 " ms: copy %" PRIu32 "\n", clock_ns / 1000000, copy);
    if (copy >= lost && ack_at_ns == UINT64_MAX) {
        ack_at_ns = clock_ns + rtt_ns;
        ack_copy = copy;
    }
}

int wait_ack(uint64_t until_ns, uint32_t *echo) {
    if (ack_at_ns <= until_ns) {
        clock_ns = ack_at_ns;
        ack_at_ns = UINT64_MAX;
        *echo = ack_copy;
        return 1;
    }
    clock_ns = until_ns;
    return 0;
}

int main(int argc, char **argv) {
    coapcc_config cfg;
    coapcc_algorithm alg;
    coapcc_state st;
    coapcc_pcg pcg;
    coapcc_rng rng = {coapcc_pcg_next_u64, &pcg};
    char *item;
    int i, outcome;
    if (argc < 3 || coapcc_config_preset(&cfg, argv[1]) != COAPCC_OK) return 2;
    for (i = 3; i < argc; i++)
        if (coapcc_config_set(&cfg, argv[i]) != COAPCC_OK) return 2;
    if (coapcc_algorithm_build(&alg, &cfg) != COAPCC_OK || coapcc_state_init(&st, &alg) != COAPCC_OK ||
        coapcc_pcg_seed(&pcg, 1) != COAPCC_OK)
        return 2;
    for (item = strtok(argv[2], ","); item; item = strtok(NULL, ",")) {
        lost = (uint32_t)strtoul(item, NULL, 10);
        printf("%" PRIu64 " ms: request\n", clock_ns / 1000000);
        outcome = request(&alg, &st, &rng);
        printf("%" PRIu64 " ms: outcome %d\n", clock_ns / 1000000, outcome);
        ack_at_ns = UINT64_MAX;
    }
    return 0;
}
