/* Scanning memory for 8-byte words in a range of values, a vector of four
 * words at a time: the checking mode looks at every word of every copy for
 * host and device addresses, and nearly none is one. */
#ifndef OMPEMU_WORDSCAN_H
#define OMPEMU_WORDSCAN_H

#include <stddef.h>
#include <stdint.h>

/* Index of the first of the WORDS 8-byte words at P (any alignment) whose
 * value W has W - LO < SPAN (unsigned: LO <= W < LO + SPAN), or WORDS if
 * none does. */
size_t ompemu_first_word_in(const void *p, size_t words, uint64_t lo,
                            uint64_t span);

#endif
