/* The checking mode (`ompemu-run --check`, OMPEMU_CHECK=1) and the
 * data-movement report (`ompemu-run --report`, OMPEMU_REPORT=1): one
 * observer of the runtime's observation points (observe.h), split by
 * concern (docs/check.md).  Files, each calling only the ones below it:
 *   check.c          set-up, the observer (events to the files below), the
 *                    deferred work of a queue wait, exit summary and status
 *   check_race.c     nowait target regions: hold, deterministic order, races
 *   check_data.c     lost results, stale data, uninitialised memory, use
 *                    after exit data, update of unmapped data
 *   check_hostptr.c  host pointers reaching device code: host aliases
 *   check_report.c   redundant transfers, round trips, unused allocations
 *   check_util.c     findings, names of variables and constructs, hashing,
 *                    device memory access through the plugin, a
 *                    construct's uses
 *   check_blocks.c   the table of device blocks (live and freed)
 *   check_heap.c     host heap blocks: map sections that run past them
 *   check_extend.c   map entries refused for extending a mapping
 *   check_lock.c     check_lock, biased to the one thread that checks
 * check_describe.c exports ompemu_describe_device_addr and
 * check_kernel_place.c ompemu_describe_kernel (for the emu plugin's fault
 * handler: the variable, the construct); check_api.c (omp_target_alloc'd
 * blocks, used by device_memory.c in every mode) stands apart.
 *
 * Locks: check_lock (a leaf: taken inside the data path's map_lock, never
 * the other way round) protects the block table and every file's state;
 * the files' functions expect it held unless they say otherwise.  Plugin
 * calls (copies, aliases, poison counts) are made with it held: the
 * plugin calls back into the runtime only through the diagnostic sink,
 * which takes no lock of ours. */
#ifndef OMPEMU_CHECK_H
#define OMPEMU_CHECK_H

#include "doors.h"
#include "observe.h"
#include "biaslock.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* ---- configuration (check.c) ---- */

enum check_order { ORDER_OFF, ORDER_SOURCE, ORDER_REVERSE, ORDER_SEED };

struct check_config {
  int check;         /* OMPEMU_CHECK: findings */
  int report;        /* OMPEMU_REPORT, or check: the data-movement report */
  int exit_code;     /* OMPEMU_CHECK_EXIT (default 99) */
  enum check_order order; /* OMPEMU_CHECK_ORDER */
  uint64_t seed;
  int hold_ms;       /* OMPEMU_CHECK_HOLD_MS: how long a nowait region
                        waits for others (default 50) */
};
RT_HIDDEN extern struct check_config check_cfg;
/* The lock (check_lock.c): check_lock_take / check_lock_give around every
 * use of the checker's state; check_lock_mutex, by the holder, before it
 * waits on a condition variable with check_lock (the lock is then that
 * mutex); check_lock_try, from a fault handler: 0 or EBUSY.  Only these
 * take or give check_lock. */
RT_HIDDEN extern struct biaslock check_lock;
RT_HIDDEN void check_lock_setup(void);
static inline void check_lock_take(void) { biaslock_lock(&check_lock); }
static inline void check_lock_give(void) { biaslock_unlock(&check_lock); }
RT_HIDDEN void check_lock_mutex(void);
RT_HIDDEN int check_lock_try(void);

/* memset (P, 0, N) for a record of constant size N, in 16-byte stores:
 * GCC's `rep stos` for one costs more than the stores (a twentieth of
 * the empty launch under --check was a construct record's). */
__attribute__((optimize("no-tree-loop-distribute-patterns"), always_inline))
static inline void check_zero(void *p, size_t n) {
  typedef uint64_t v2u64 __attribute__((vector_size(16)));
  const v2u64 zero = {0, 0};
  char *c = p;
  size_t i = 0;
#pragma GCC unroll 32
  for (; i + 16 <= n; i += 16)
    __builtin_memcpy(c + i, &zero, 16);
  for (; i < n; i++)
    c[i] = 0;
}

/* ---- device blocks (check_blocks.c) ---- */

enum cblock_kind {
  CB_RAW,     /* allocated, not (yet) known as a mapping */
  CB_MAPPED,  /* the device copy of a mapped host range */
  CB_PRIVATE, /* a private/firstprivate buffer of one launch */
  CB_API,     /* omp_target_alloc / llvm_omp_target_alloc_* */
  CB_GLOBAL   /* a declare-target global (device memory not ours) */
};

struct cedge { /* a device pointer stored in a block: attached pointee */
  uintptr_t to;  /* device address it holds */
  uintptr_t off; /* where in the block */
  struct cedge *next;
};

/* 240 bytes: in four cache lines (check_blocks.c allocates them aligned);
 * the flags are bytes. */
struct cblock {
  int32_t dev;
  enum cblock_kind kind;
  uintptr_t tgt, size;   /* device range */
  /* the table of live blocks (check_blocks.c), next to the key: the
   * blocks starting in the same 4 KiB bucket, by start; the tree of those
   * that end in a later bucket (a walk reads one cache line per node) */
  struct cblock *next_in_bucket;
  struct cblock *left, *right, *up;
  uint64_t prio;
  uintptr_t hst;         /* host begin (0: none) */
  const char *var;       /* interned map name or global name, or NULL */
  int64_t maptype;       /* of the entry that created the mapping */
  const char *mapped_at; /* interned "file:line" of that construct */
  const char *freed_at;  /* ... of the construct that removed it */
  uint64_t alloc_seq;    /* n-th allocation of the process */
  const void *freeing;   /* the thread freeing it (check.c on_free): set
                            before the plugin frees, so the end of the
                            free removes this record, not one another
                            thread added at the same address since */
  /* check mode */
  unsigned char *expect; /* device content as the runtime last knew it:
                            copies of its own host range both ways,
                            attached pointers, aliases (not copies from
                            elsewhere, e.g. omp_target_memcpy: those are
                            changes on the device); NULL until needed */
  unsigned char *ptrmap; /* bit per 8-byte word: the device holds a
                            pointer the runtime put there (attached, alias) */
  unsigned char freed;
  unsigned char initialized; /* every byte was written by a copy or kernel */
  unsigned char partly_written; /* some byte was (seen at a kernel's
                                   start): not to be watched for reads
                                   again */
  unsigned char uninit_reported; /* a finding about its poison was made */
  unsigned char before_start_reported; /* a kernel read before it
                                          (check_slack.c) */
  unsigned char lost_reported; /* ... about a lost result */
  unsigned char kernel_transfer; /* a kernel reached it through a map entry
                                    of its own construct that moves data
                                    (to, from, implicit) or through none:
                                    not only through an explicit
                                    map(alloc:) */
  unsigned char chose_back; /* a `target update from` copied (part of) it
                               back since the last kernel reached it: what
                               it left on the device, it left on purpose */
  unsigned char used;    /* report: reached by a kernel (argument or
                            pointee) */
  unsigned char sync_known, stale_reported; /* globals (check mode) */
  char *pending_lost;    /* a "results not copied back" finding made when
                            no later copy brings [pending_hst, +size) back
                            before the mapping goes or the program ends */
  uintptr_t pending_hst, pending_size;
  char *pending_uninit;  /* an uninitialized read of scratch its kernel
                            then wrote in full: a finding once its bytes
                            are copied to the host, dropped if never */
  uint64_t synced;       /* check_dev_epoch when a copy of the whole block
                            to the host made EXPECT its device bytes */
  const char *last_kernel; /* interned name of the last kernel it reached */
  const char *last_kernel_at;
  /* The kernel seen to change it since its device bytes were last known
   * (a later kernel given it looked: check_data.c), or NULL. */
  const char *writer, *writer_at;
  /* report */
  uint64_t mark;         /* traversal epoch */
  struct cedge *edges;
  /* globals (check mode) */
  uint64_t sync_hash;    /* host bytes at the last transfer; 0 unknown */
  struct cblock *next_global;
  struct cblock *next_freed; /* records given back, for reuse */
};

/* Live block containing [TGT, TGT+SIZE).  The block found last answers
 * a lookup inside it here, without a call (a construct's events look the
 * same block up several times); else the table (cb_find_lookup). */
RT_HIDDEN extern struct cblock *cb_last_found;
RT_HIDDEN struct cblock *cb_find_lookup(int32_t dev, uintptr_t tgt,
                                        uintptr_t size);
static inline struct cblock *cb_find_range(int32_t dev, uintptr_t tgt,
                                           uintptr_t size) {
  struct cblock *c = cb_last_found;
  uintptr_t n = size ? size : 1, cn = c && c->size ? c->size : 1;
  /* Live blocks never overlap: the one holding the range is the answer. */
  if (c && c->dev == dev && tgt >= c->tgt && n <= cn && tgt - c->tgt <= cn - n)
    return c;
  return cb_find_lookup(dev, tgt, size);
}
/* Live block of device DEV containing TGT (or NULL). */
static inline struct cblock *cb_find(int32_t dev, uintptr_t tgt) {
  return cb_find_range(dev, tgt, 1);
}
/* Live block of any device containing TGT. */
RT_HIDDEN struct cblock *cb_find_any(uintptr_t tgt);
/* The most recently freed block of DEV (any device when DEV < 0) that
 * contained TGT and no live block has reused since, or NULL. */
RT_HIDDEN struct cblock *cb_find_freed(int32_t dev, uintptr_t tgt);
/* A new live block (replacing nothing: a live block overlapping it is
 * forgotten first).  NULL when out of memory (reported). */
RT_HIDDEN struct cblock *cb_add(int32_t dev, uintptr_t tgt, uintptr_t size,
                                enum cblock_kind kind);
/* B was freed by the construct at WHERE: kept among the freed blocks. */
RT_HIDDEN void cb_free(struct cblock *b, const char *where);
/* Devices the block table knows (0 .. CHECK_MAX_DEVICES - 1). */
#define CHECK_MAX_DEVICES 64
/* Declare-target globals of DEV (linked through next_global). */
RT_HIDDEN struct cblock *cb_globals(int32_t dev);
/* Every live block, in no particular order; FN returns non-zero to stop. */
RT_HIDDEN void cb_foreach(int (*fn)(struct cblock *b, void *arg), void *arg);
/* Record that the word at offset OFF of B holds the device pointer TO
 * (into a block of its device), in place of what it held; TO 0: no
 * device pointer any more. */
RT_HIDDEN void cb_link(struct cblock *b, uintptr_t off, uintptr_t to);
/* Bytes of B's expected content, created on first use (zeroed, unless
 * WHOLE: the caller is about to write all of it); NULL when out of
 * memory. */
RT_HIDDEN unsigned char *cb_expect(struct cblock *b, int whole);
/* The word at offset OFF of B holds a pointer the runtime wrote; is it? */
RT_HIDDEN void cb_mark_pointer(struct cblock *b, uintptr_t off);
RT_HIDDEN int cb_is_pointer(const struct cblock *b, uintptr_t off);
/* A process-unique increasing number. */
RT_HIDDEN uint64_t cb_next_seq(void);
/* Any device address seen, for telling device ranges from host ones. */
RT_HIDDEN int cb_is_device_anchor(uintptr_t lo, uintptr_t hi);

/* ---- utilities (check_util.c) ---- */

/* One finding: "ompemu: check: " and the message, as an error through
 * src/common/trace.h.  A message identical to an earlier one is counted,
 * not printed again.  Takes no lock of ours. */
RT_HIDDEN void check_finding(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
/* Findings printed, and repeats not printed. */
RT_HIDDEN unsigned long check_findings(unsigned long *repeats);
/* A copy of S that lives until exit (the same copy for the same S). */
RT_HIDDEN const char *check_intern(const char *s);
/* Names for data mapped without one (flang's "unknown": an allocatable's
 * or a pointer component's data, under its descriptor; clang's implicit
 * `this`): B takes VAR, the name of a later entry of SIZE bytes at its
 * start (`s%acc` after the "unknown" entry that made a derived type's
 * descriptor), if B's name is none, or the name of the variable VAR is a
 * member of (`*this` for `this->d`) when the entry is shorter; the
 * POINTEE of a pointer the runtime attached in HOLDER takes HOLDER's name
 * (the descriptor's: `u`, `s%acc`) if it has none. */
RT_HIDDEN void check_name_adopt(struct cblock *b, const char *var,
                                uintptr_t size);
/* VAR is a map name with an expression (not flang's "unknown"). */
RT_HIDDEN int check_named(const char *var);
RT_HIDDEN void check_name_pointee(const struct cblock *holder,
                                  struct cblock *pointee);
/* Interned "file:line" of a construct ("unknown location" if none). */
RT_HIDDEN const char *check_where(const ident_t *loc);
/* The region's place from its kernel's entry name when its ident has
 * none: "line 13 of _QQmain" for "__omp_offloading_fe00_5102__QQmain_l13",
 * or NULL. */
RT_HIDDEN const char *check_where_kernel(const char *kernel);
/* Map entry of kernel argument K of launch event E (-1 if none). */
RT_HIDDEN int32_t check_arg_entry(const struct obs_event *e, int32_t k);
/* Whether argument K is a literal narrower than a pointer (an int passed
 * by value): only the low bytes of its slot are set, the rest is whatever
 * the caller's stack held, which may look like an address. */
RT_HIDDEN int check_arg_narrow_literal(const struct obs_event *e, int32_t k);
/* SYM as the source names it: flang's _QMmEscale is "scale". */
RT_HIDDEN const char *check_source_name(const char *sym, char *buf,
                                        size_t len);
/* The variable of B in words: "a[0:n] (declared at t.c:9)" or "host
 * [0x..., 0x...)" or "a declare target global g". */
RT_HIDDEN const char *check_var_words(const char *var, uintptr_t hst,
                                      uintptr_t size, char *buf, size_t len);
RT_HIDDEN const char *check_block_words(const struct cblock *b, char *buf,
                                        size_t len);
/* Just the expression ("a[0:n]") or the host range. */
RT_HIDDEN const char *check_var_short(const char *var, uintptr_t hst,
                                      uintptr_t size, char *buf, size_t len);
/* "tofrom", "always, to", "alloc", "implicit tofrom", ... of a map type;
 * AT_EXIT: an entry of a data end ("release", "delete"). */
RT_HIDDEN const char *check_maptype_words(int64_t type, int at_exit,
                                          char *buf, size_t len);
/* "target region", "data region entry", ... of a REGION kind. */
RT_HIDDEN const char *check_region_words(int kind, int nowait);
/* Bumped at whatever may write device memory unseen by the checker's
 * copies: a construct's start, a kernel's, a copy to the device, the
 * checker's own writes (check_dev_write).  Caller holds check_lock, except
 * check_dev_write (atomic). */
RT_HIDDEN extern uint64_t check_dev_epoch;
/* Kernels begun and copies to the device done, of any thread, whose end
 * the checker has not seen yet (queued: seen at the queue's wait).  Under
 * check_lock. */
RT_HIDDEN extern unsigned long check_unsettled;
/* Whether block B's expected bytes are surely its device bytes: a copy of
 * the whole block to the host made them so (check.c) and nothing that may
 * write device memory began or ran since.  Caller holds check_lock. */
RT_HIDDEN int check_synced(const struct cblock *b);
/* 64-bit hash of N bytes at P (never 0). */
RT_HIDDEN uint64_t check_hash(const void *p, size_t n);
/* One pass over the N bytes at SRC: their check_hash, returned; a copy at
 * DST unless DST is NULL; with CLEAN, *CLEAN is a number of leading bytes
 * of SRC (0 unless SRC is 8-aligned) none of whose 8-byte words W has
 * W - LO < SPAN (unsigned), so that a scan for such words can start
 * there. */
RT_HIDDEN uint64_t check_pass(void *dst, const void *src, size_t n,
                              uint64_t lo, uint64_t span, size_t *clean);
/* The hash the report keeps of a copy's N bytes at P (never 0):
 * check_hash's from HASH_SMALL bytes on, a word-at-a-time one below. */
#define HASH_SMALL 128
RT_HIDDEN uint64_t check_copy_hash(const void *p, size_t n);
/* check_pass for N under HASH_SMALL, in one loop of words: it returns
 * their check_copy_hash, and *CLEAN (0 unless SRC is 8-aligned) is the
 * number of leading whole words none of which is in the range, as
 * ompemu_first_word_in counts them. */
RT_HIDDEN uint64_t check_pass_small(void *dst, const void *src, size_t n,
                                    uint64_t lo, uint64_t span,
                                    size_t *clean);
/* The plugin of global device DEV: device copies and queries made
 * directly (not observed).  0 / -1 (the plugin reports). */
RT_HIDDEN int check_dev_read(int32_t dev, void *dst, uintptr_t tgt,
                             size_t n);
RT_HIDDEN int check_dev_write(int32_t dev, uintptr_t tgt, const void *src,
                              size_t n);
/* The scan of copies to the device for device addresses (the emu
 * plugin's, ompemu_note_pointers): check_dev_notes is 1 once DEV's plugin
 * has left it to the checker (asked at the first call), which then calls
 * check_dev_note after every copy to DEV that succeeded, with the N bytes
 * at SRC copied to TGT and a leading part CLEAN of them that holds no word
 * in [HOSTPTR_LO, HOSTPTR_LO + HOSTPTR_SPAN) (check_pass): the device
 * addresses are in that range. */
RT_HIDDEN int check_dev_notes(int32_t dev);
RT_HIDDEN void check_dev_note(int32_t dev, uintptr_t tgt, const void *src,
                              size_t n, size_t clean);
/* Bytes of [TGT, TGT+N) still holding the device's poison; -1 when the
 * plugin cannot say. */
RT_HIDDEN int64_t check_dev_poisoned(int32_t dev, uintptr_t tgt, size_t n);
/* Start (ON) or end a watch of reads of [TGT, TGT+N), a wholly unwritten
 * block (ON 1) or a declare-target global's bytes (ON 2, read before any
 * write), by the next kernel; at the end *FIRST_READ is the offset of the
 * first read, -1 none.  0 / -1 (no such plugin entry, or refused). */
RT_HIDDEN int check_dev_watch(int32_t dev, uintptr_t tgt, size_t n, int on,
                              int64_t *first_read);
/* An alias for host pointer HOST from DEV's plugin, or 0. */
RT_HIDDEN uintptr_t check_dev_alias(int32_t dev, uintptr_t host,
                                    const char *desc);

/* ---- per construct (check.c creates them and keeps the thread's current
 * one; the files of the concerns fill them) ---- */

struct crange {
  uintptr_t lo, hi;
};

struct use_at { /* a use's device address and its index in the uses */
  uintptr_t tgt;
  int idx;
};

struct cuse { /* a mapping a construct used */
  uintptr_t hst, size, tgt;
  const char *var;
  int64_t maptype;
  int decremented_from; /* a FROM entry of a data end */
  uint64_t refs;        /* reference count after the decrement */
  uintptr_t wlo, whi;   /* host range of bytes its kernel changed */
  unsigned char *before; /* device content before the kernel (races) */
  int present;          /* mapped before the construct: nothing copied in */
  /* What a race check measures: the entry's bytes, or for a zero-length
   * section (a pointer a kernel gets into data mapped before) its block. */
  uintptr_t rhst, rsize, rtgt;
};

struct cregion {
  int kind;             /* enum obs_region_kind */
  int nowait;
  int32_t dev;
  const char *where;    /* interned "file:line" */
  int line;
  const char *kernel;   /* interned kernel name */
  struct cuse *uses;
  int nuses, capuses;
  int *uindex, uindex_cap; /* uses by key, once they are many (check_uses.c) */
  struct crange *copies;   /* its copies back, host ranges */
  int ncopies, capcopies, copies_sorted;
  struct use_at *by_tgt;   /* uses by device address, once many */
  int by_tgt_n;
  /* races (check_race.c) */
  int in_batch;         /* held with other nowait regions */
  int tracked;          /* its kernel's writes are measured */
  uint64_t order_key, arrival;
  unsigned long member; /* index in its batch */
  uint64_t concurrent;  /* bit set of batch members it overlapped */
  int done;
  /* kernel (check_data.c): device addresses of its argument blocks that
   * were wholly uninitialised when it started */
  uintptr_t *uninit;
  int nuninit;
  /* target update (check_data.c): the place of the variable last
   * reported not mapped */
  uint64_t absent_place;
  /* ... and those whose reads its kernel is watched for (map(from:) or
   * map(alloc:), wholly unwritten) */
  uintptr_t *watched;
  int nwatched;
  /* ... and the blocks whose slack before their start it watches
   * (check_slack.c) */
  uintptr_t *slack;
  int nslack;
};

/* check_uses.c: record that R used [HST, HST+SIZE) at TGT; the entry, or
 * NULL.  R copied [HST, HST+SIZE) back to the host; whether a copy back of
 * R overlaps use U; what R keeps besides its uses' array (their index, its
 * copies back), freed (a record reused for the thread's next construct
 * keeps both arrays: check.c). */
RT_HIDDEN struct cuse *check_region_use(struct cregion *r, uintptr_t hst,
                                        uintptr_t size, uintptr_t tgt,
                                        const char *var, int64_t maptype);
RT_HIDDEN void check_region_copied(struct cregion *r, uintptr_t hst,
                                   uintptr_t size);
RT_HIDDEN int check_use_copied_from(struct cregion *r, const struct cuse *u);
/* The uses of R whose device address lies in [LO, HI): their number, with
 * their indices in *AT (by address); -1 when R has few uses, which the
 * caller walks instead. */
RT_HIDDEN int check_uses_in(struct cregion *r, uintptr_t lo, uintptr_t hi,
                            const struct use_at **at);
RT_HIDDEN void check_region_uses_free(struct cregion *r);

/* ---- the concerns (each file's entry points, called by check.c) ---- */

/* check_hostptr.c */
/* The values a host data address can have (a word outside them is none):
 * [HOSTPTR_LO, HOSTPTR_LO + HOSTPTR_SPAN). */
#define HOSTPTR_LO ((uintptr_t)0x10000)
#define HOSTPTR_SPAN ((uintptr_t)0x800000000000 - HOSTPTR_LO)
/* A copy of [HST, HST+SIZE) to block B at TGT; its first CLEAN bytes are
 * known to hold no word in the range above (check_pass). */
RT_HIDDEN void hostptr_after_copy_to(struct cblock *b, uintptr_t tgt,
                                     uintptr_t hst, uintptr_t size,
                                     const char *var, const char *where,
                                     uintptr_t clean);
RT_HIDDEN void hostptr_after_copy_from(uintptr_t hst, uintptr_t size);
/* The values aliases of host pointers have: [*LO, *LO + *SPAN); 0 while
 * none was made. */
RT_HIDDEN int hostptr_alias_range(uintptr_t *lo, uintptr_t *span);
RT_HIDDEN void hostptr_kernel_args(struct obs_event *e, const char *where);
/* check_kernel_place.c: kernel ENTRY was launched by the construct at
 * WHERE (interned), for ompemu_describe_kernel. */
RT_HIDDEN void check_kernel_place(const void *entry, const char *where);
RT_HIDDEN void hostptr_region_begin(void);
RT_HIDDEN int hostptr_is_alias(uintptr_t v);
/* The host value alias V stands for (0: not an alias). */
RT_HIDDEN uintptr_t hostptr_host_of(uintptr_t v);

/* check_data.c */
RT_HIDDEN void data_after_copy_from(struct cregion *r, struct cblock *b,
                                    uintptr_t tgt, uintptr_t hst,
                                    uintptr_t size, const char *var);
RT_HIDDEN void data_before_free(struct cregion *r, struct cblock *b);
RT_HIDDEN void data_map_exists(struct cregion *r, struct cblock *b,
                               const struct obs_event *e);
RT_HIDDEN void data_update_absent(struct cregion *r,
                                  const struct obs_event *e);
RT_HIDDEN void data_region_end(struct cregion *r);
/* A copy from B's device copy to [HST, +SIZE): results that an exit data
 * left behind are back (check mode). */
RT_HIDDEN void data_pending_copy_from(struct cblock *b, uintptr_t hst,
                                      uintptr_t size);
/* B's pending "results not copied back" finding is made now (its mapping
 * goes, or the program ends). */
RT_HIDDEN void data_pending_flush(struct cblock *b);
RT_HIDDEN void data_kernel_begin(struct cregion *r, struct obs_event *e);
RT_HIDDEN void data_kernel_done(struct cregion *r);
/* Watch the kernel's wholly unwritten from/alloc blocks for reads (after
 * every other look at the blocks before the kernel), and collect what was
 * seen (before any other look after it). */
RT_HIDDEN void data_kernel_watch(struct cregion *r, struct obs_event *e);
RT_HIDDEN void data_kernel_unwatch(struct cregion *r);
/* (construct WHERE, B's variable) pairs whose watch of kind KIND
 * (CLEAN_UNWRITTEN, CLEAN_SLACK) saw nothing: 1 when known clean; ADD
 * records one. */
enum { CLEAN_UNWRITTEN, CLEAN_SLACK };
RT_HIDDEN int check_clean_pair(const char *where, const struct cblock *b,
                               int kind, int add);
RT_HIDDEN void data_globals_check(struct cregion *r, int32_t dev);
/* A copy between host and device moved [TGT, TGT+SIZE) of global G. */
RT_HIDDEN void data_global_synced(struct cblock *g, uintptr_t tgt,
                                  uintptr_t size);
/* After the kernel of R completed: a stale global it did not read, or one
 * a kernel of its device wrote, is no stale finding. */
RT_HIDDEN void data_globals_kernel_done(const struct cregion *r);
/* At exit: the stale globals no kernel wrote, reported. */
RT_HIDDEN void data_globals_flush(void);

/* check_slack.c: watch the slack before the blocks of the kernel's
 * arguments that point before their block (a section's base), and report
 * a read there (after data_kernel_watch, before data_kernel_unwatch). */
/* The mapped block of DEV whose slack (the bytes of its first page before
 * it) holds V, V being in no block; NULL if none. */
RT_HIDDEN struct cblock *slack_block(int32_t dev, uintptr_t v);
RT_HIDDEN void slack_kernel_watch(struct cregion *r, struct obs_event *e);
RT_HIDDEN void slack_kernel_unwatch(struct cregion *r);

/* check_heap.c: a map entry (OBS_MAP NEW or REFUSED) whose section
 * starts at a host heap block and runs past its end: reported, and 1. */
RT_HIDDEN int heap_map_section(struct cregion *r, const struct obs_event *e);
/* check_extend.c: a map entry refused (OBS_MAP REFUSED) because it
 * would extend the mapping at E->tgt. */
RT_HIDDEN void extend_refused(struct cregion *r, const struct obs_event *e);
/* A copy to the host (OBS_COPY_FROM at its begin, check_lock not held)
 * that starts at a host heap block and would write past its end:
 * reported, and 1 (the copy is refused: it would overwrite other heap
 * data).  R: the construct it is in, or NULL. */
RT_HIDDEN int heap_copy_back_past(const struct obs_event *e,
                                  struct cregion *r);

/* check_race.c */
RT_HIDDEN void race_region_begin(struct cregion *r);
RT_HIDDEN void race_region_end(struct cregion *r);
/* U's measured extent (rhst, rsize, rtgt) when it is a zero-length
 * section (a pointer a kernel gets into data mapped before): the block it
 * points into, all of which the kernel may touch. */
RT_HIDDEN void race_use_extent(const struct cregion *r, struct cuse *u);
RT_HIDDEN void race_kernel_begin(struct cregion *r);
RT_HIDDEN void race_kernel_done(struct cregion *r);
/* A copy (TYPE: OMP_TGT_MAPTYPE_TO or _FROM) of host [HST, HST+SIZE) and
 * device TGT of block B made by a data construct of a batch (`target
 * update nowait`, enter or exit data nowait): what it wrote on the device
 * or read from it. */
RT_HIDDEN void race_data_copy(struct cregion *r, const struct cblock *b,
                              uintptr_t hst, uintptr_t tgt, uintptr_t size,
                              int64_t type);
RT_HIDDEN void race_summary(void);
/* check_ompt.c (caller holds check_lock): wait until no other nowait
 * region can arrive, or until UNTIL (CLOCK_MONOTONIC; then 1); a region
 * arrives: the place of its target task in the order the program created
 * them (1 on), 0 when not known. */
RT_HIDDEN int check_ompt_hold(const struct timespec *until);
RT_HIDDEN uint64_t check_ompt_arrived(void);
/* Withdraw the OMP_TOOL_LIBRARIES the tool offered itself through, once
 * libomp has initialised (policy.c). */
RT_HIDDEN void check_ompt_take_back(void);

/* check_report.c */
/* Whether the report hashes a copy of SIZE bytes of block B. */
static inline int report_hashes(const struct cblock *b, uintptr_t size) {
  return b && b->hst && b->kind != CB_PRIVATE && size;
}
/* A copy of [HST, HST+SIZE) of block B; HASH: its check_copy_hash, if
 * known. */
RT_HIDDEN void report_copy_to(struct cregion *r, struct cblock *b,
                              uintptr_t hst, uintptr_t size, const char *var,
                              const uint64_t *hash);
RT_HIDDEN void report_copy_from(struct cregion *r, struct cblock *b,
                                uintptr_t hst, uintptr_t size,
                                const char *var, const uint64_t *hash);
RT_HIDDEN void report_block_gone(struct cblock *b);
/* A map with `to` at R of data still mapped copied nothing, although the
 * host had changed some of its SIZE bytes since the device got them (the
 * report counts SIZE, as its other lines count what they moved). */
RT_HIDDEN void report_stale_kept(struct cregion *r, const char *var,
                                 uintptr_t hst, uintptr_t size);
/* B, a mapping, is still there when the program ends (freed by the
 * runtime's exit work, outside any construct, or live at the report). */
RT_HIDDEN void report_block_left(struct cblock *b);
RT_HIDDEN void report_kernel(struct obs_event *e);
RT_HIDDEN void report_print(void);

#endif
