/* Test image with thread-local storage (PT_TLS): a global-dynamic variable
 * and local-dynamic statics.  Built once as is (loaded) and once with
 * -ftls-model=initial-exec (refused). */
__thread int tls_counter = 3;
static __thread int ld_a = 5;
static __thread int ld_b[4];

int bump(void) { return ++tls_counter; }
int *counter_addr(void) { return &tls_counter; }
int ld(int i) {
  ld_b[i & 3] += ld_a;
  return ld_b[i & 3];
}
