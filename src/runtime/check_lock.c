/* check_lock, taken cheaply while one thread does all the checking
 * (check.h).  The checker takes it at every event it looks at, and a
 * mutex's two locked instructions were a quarter of an empty launch under
 * --check: a lock biased to the first thread that takes it (biaslock.h).
 * check_lock_take and check_lock_give are inline (check.h). */
#include "config.h"
#include "check.h"

struct biaslock check_lock = BIASLOCK_INITIALIZER;

void check_lock_setup(void) { biaslock_enable(&check_lock); }
void check_lock_mutex(void) { biaslock_mutex(&check_lock); }
int check_lock_try(void) { return biaslock_trylock(&check_lock); }
