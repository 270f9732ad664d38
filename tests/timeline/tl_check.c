/* tl_check FILE: validate a timeline written by ompemu (OMPEMU_TIMELINE,
 * LIBOMPTARGET_PROFILE) with a strict JSON parser (RFC 8259: no trailing
 * commas, no comments, escapes and numbers checked) and the trace-event
 * rules the Perfetto UI and chrome://tracing rely on:
 *   - the top level is an object with a "traceEvents" array of objects;
 *   - every event has a string "name" and "ph"; every event but process
 *     metadata has integer "pid" and "tid";
 *   - "X" events have numeric "ts" and "dur" >= 0; "i" events a "ts";
 *   - "s"/"t"/"f" flow events have an "id"; each flow id has exactly one
 *     "s", one "f", and the "s" comes first in time;
 *   - every pid used has a process_name, every (pid, tid) with events a
 *     thread_name.
 * Then it prints one normalised line per event (no times), in file
 * order, for the test script to grep and to compare between runs:
 *   EV ph=X pid=1 tid=2 cat=copy name=to device alpha bytes=4096 ...
 *   TRACK pid=1 tid=2 name=host thread 1
 * Exit status 0 when valid, 1 with a message on stderr otherwise. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum jt { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };
struct jv {
  enum jt t;
  double num;
  char *str;          /* J_STR; J_BOOL: "true"/"false" */
  struct jv **items;  /* J_ARR, J_OBJ values */
  char **keys;        /* J_OBJ */
  size_t n, cap;
};

static const char *src, *p;
static const char *fail_msg;

static void fail(const char *m) {
  if (!fail_msg)
    fail_msg = m;
}

static void ws(void) {
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
    p++;
}

static struct jv *node(enum jt t) {
  struct jv *v = calloc(1, sizeof *v);
  if (!v) {
    fprintf(stderr, "tl_check: out of memory\n");
    exit(2);
  }
  v->t = t;
  return v;
}

static void push(struct jv *v, char *key, struct jv *item) {
  if (v->n == v->cap) {
    v->cap = v->cap ? v->cap * 2 : 8;
    v->items = realloc(v->items, v->cap * sizeof *v->items);
    v->keys = realloc(v->keys, v->cap * sizeof *v->keys);
    if (!v->items || !v->keys) {
      fprintf(stderr, "tl_check: out of memory\n");
      exit(2);
    }
  }
  v->keys[v->n] = key;
  v->items[v->n++] = item;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  c = (char)tolower((unsigned char)c);
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* A JSON string at P (after its quote) into a new buffer. */
static char *parse_string(void) {
  size_t cap = 32, n = 0;
  char *s = malloc(cap);
  for (;;) {
    if (n + 8 >= cap)
      s = realloc(s, cap *= 2);
    unsigned char c = (unsigned char)*p++;
    if (c == '"')
      break;
    if (c == 0 || c < 0x20) {
      fail("unterminated string or control character in a string");
      break;
    }
    if (c != '\\') {
      s[n++] = (char)c;
      continue;
    }
    c = (unsigned char)*p++;
    switch (c) {
    case '"': case '\\': case '/': s[n++] = (char)c; break;
    case 'b': s[n++] = '\b'; break;
    case 'f': s[n++] = '\f'; break;
    case 'n': s[n++] = '\n'; break;
    case 'r': s[n++] = '\r'; break;
    case 't': s[n++] = '\t'; break;
    case 'u': {
      unsigned u = 0;
      for (int i = 0; i < 4; i++) {
        int h = hexval(*p++);
        if (h < 0) {
          fail("bad \\u escape");
          break;
        }
        u = u * 16 + (unsigned)h;
      }
      s[n++] = u < 0x80 ? (char)u : '?';
      break;
    }
    default:
      fail("bad escape in a string");
    }
    if (fail_msg)
      break;
  }
  s[n] = 0;
  return s;
}

static struct jv *parse_value(int depth);

static struct jv *parse_number(void) {
  const char *q = p;
  if (*q == '-')
    q++;
  if (*q == '0')
    q++;
  else if (isdigit((unsigned char)*q))
    while (isdigit((unsigned char)*q))
      q++;
  else
    fail("bad number");
  if (*q == '.') {
    q++;
    if (!isdigit((unsigned char)*q))
      fail("bad number: no digit after '.'");
    while (isdigit((unsigned char)*q))
      q++;
  }
  if (*q == 'e' || *q == 'E') {
    q++;
    if (*q == '+' || *q == '-')
      q++;
    if (!isdigit((unsigned char)*q))
      fail("bad number exponent");
    while (isdigit((unsigned char)*q))
      q++;
  }
  struct jv *v = node(J_NUM);
  v->num = strtod(p, NULL);
  p = q;
  return v;
}

static struct jv *parse_value(int depth) {
  if (depth > 64) {
    fail("nesting too deep");
    return node(J_NULL);
  }
  ws();
  struct jv *v;
  if (*p == '{') {
    p++;
    v = node(J_OBJ);
    ws();
    if (*p == '}') {
      p++;
      return v;
    }
    for (;;) {
      ws();
      if (*p != '"') {
        fail("object key is not a string");
        return v;
      }
      p++;
      char *k = parse_string();
      ws();
      if (*p != ':') {
        fail("missing ':' in an object");
        free(k);
        return v;
      }
      p++;
      push(v, k, parse_value(depth + 1));
      if (fail_msg)
        return v;
      ws();
      if (*p == ',') {
        p++;
        continue;
      }
      if (*p == '}') {
        p++;
        return v;
      }
      fail("missing ',' or '}' in an object");
      return v;
    }
  }
  if (*p == '[') {
    p++;
    v = node(J_ARR);
    ws();
    if (*p == ']') {
      p++;
      return v;
    }
    for (;;) {
      push(v, NULL, parse_value(depth + 1));
      if (fail_msg)
        return v;
      ws();
      if (*p == ',') {
        p++;
        continue;
      }
      if (*p == ']') {
        p++;
        return v;
      }
      fail("missing ',' or ']' in an array");
      return v;
    }
  }
  if (*p == '"') {
    p++;
    v = node(J_STR);
    v->str = parse_string();
    return v;
  }
  if (!strncmp(p, "true", 4) || !strncmp(p, "false", 5)) {
    v = node(J_BOOL);
    v->str = *p == 't' ? "true" : "false";
    p += *p == 't' ? 4 : 5;
    return v;
  }
  if (!strncmp(p, "null", 4)) {
    p += 4;
    return node(J_NULL);
  }
  if (*p == '-' || isdigit((unsigned char)*p))
    return parse_number();
  fail("unexpected character");
  return node(J_NULL);
}

static void free_tree(struct jv *v) {
  for (size_t i = 0; i < v->n; i++) {
    free_tree(v->items[i]);
    if (v->keys)
      free(v->keys[i]);
  }
  free(v->items);
  free(v->keys);
  if (v->t == J_STR)
    free(v->str);
  free(v);
}

static struct jv *get(const struct jv *o, const char *key) {
  if (!o || o->t != J_OBJ)
    return NULL;
  for (size_t i = 0; i < o->n; i++)
    if (!strcmp(o->keys[i], key))
      return o->items[i];
  return NULL;
}

static const char *gets_(const struct jv *o, const char *key) {
  struct jv *v = get(o, key);
  return v && v->t == J_STR ? v->str : NULL;
}

static int getnum(const struct jv *o, const char *key, double *out) {
  struct jv *v = get(o, key);
  if (!v || v->t != J_NUM)
    return 0;
  *out = v->num;
  return 1;
}

static int errors;
static void bad(size_t i, const char *what) {
  if (errors++ < 20)
    fprintf(stderr, "tl_check: event %zu: %s\n", i, what);
}

#define MAXT 4096
static struct {
  int pid, tid, named, used;
} threads[MAXT];
static int nthreads;
static struct {
  int pid, named, used;
} procs[MAXT];
static int nprocs;

static int *thread_slot(int pid, int tid) {
  for (int i = 0; i < nthreads; i++)
    if (threads[i].pid == pid && threads[i].tid == tid)
      return &threads[i].named;
  if (nthreads == MAXT)
    return NULL;
  threads[nthreads].pid = pid;
  threads[nthreads].tid = tid;
  return &threads[nthreads++].named;
}

static int *proc_slot(int pid) {
  for (int i = 0; i < nprocs; i++)
    if (procs[i].pid == pid)
      return &procs[i].named;
  if (nprocs == MAXT)
    return NULL;
  procs[nprocs].pid = pid;
  return &procs[nprocs++].named;
}

struct flow {
  long id;
  int s, f;
  double ts_s, ts_f;
};
static struct flow *flows;
static size_t nflows, capflows;

static struct flow *flow_of(long id) {
  for (size_t i = 0; i < nflows; i++)
    if (flows[i].id == id)
      return &flows[i];
  if (nflows == capflows) {
    capflows = capflows ? capflows * 2 : 64;
    flows = realloc(flows, capflows * sizeof *flows);
  }
  memset(&flows[nflows], 0, sizeof *flows);
  flows[nflows].id = id;
  return &flows[nflows++];
}

/* The args worth comparing, without addresses or times. */
static void print_args(const struct jv *a) {
  static const char *keys[] = {"variable", "bytes",   "direction", "source",
                               "teams",    "threads", "nowait",    "decision",
                               "dyn_ref",  "hold_ref", "completes", "device",
                               "failed",   "unfinished", "plugin"};
  for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
    struct jv *v = get(a, keys[k]);
    if (!v)
      continue;
    if (v->t == J_NUM)
      printf(" %s=%.0f", keys[k], v->num);
    else if (v->t == J_STR || v->t == J_BOOL)
      printf(" %s=%s", keys[k], v->str);
  }
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: tl_check FILE\n");
    return 2;
  }
  FILE *f = fopen(argv[1], "rb");
  if (!f) {
    fprintf(stderr, "tl_check: cannot open %s\n", argv[1]);
    return 1;
  }
  size_t cap = 1 << 16, n = 0, r;
  char *buf = malloc(cap + 1);
  while ((r = fread(buf + n, 1, cap - n, f)) > 0) {
    n += r;
    if (n == cap)
      buf = realloc(buf, (cap *= 2) + 1);
  }
  fclose(f);
  buf[n] = 0;
  if (strlen(buf) != n) {
    fprintf(stderr, "tl_check: NUL byte in the file\n");
    return 1;
  }
  src = p = buf;
  struct jv *root = parse_value(0);
  ws();
  if (!fail_msg && *p)
    fail("text after the top-level value");
  if (fail_msg) {
    fprintf(stderr, "tl_check: %s: not valid JSON at byte %ld: %s\n", argv[1],
            (long)(p - src), fail_msg);
    free_tree(root);
    free(buf);
    return 1;
  }
  struct jv *ev = get(root, "traceEvents");
  if (!ev || ev->t != J_ARR) {
    fprintf(stderr, "tl_check: no traceEvents array\n");
    free_tree(root);
    free(buf);
    return 1;
  }
  for (size_t i = 0; i < ev->n; i++) {
    struct jv *e = ev->items[i];
    if (e->t != J_OBJ) {
      bad(i, "not an object");
      continue;
    }
    const char *name = gets_(e, "name"), *ph = gets_(e, "ph");
    double pid = 0, tid = 0, ts = 0, dur = 0;
    if (!name || !ph || strlen(ph) != 1) {
      bad(i, "no string name or one-letter ph");
      continue;
    }
    int has_pid = getnum(e, "pid", &pid), has_tid = getnum(e, "tid", &tid);
    struct jv *args = get(e, "args");
    if (*ph == 'M') {
      if (!has_pid || !args || args->t != J_OBJ) {
        bad(i, "metadata without pid or args");
        continue;
      }
      if (!strcmp(name, "process_name") && gets_(args, "name")) {
        int *s = proc_slot((int)pid);
        if (s)
          *s = 1;
        printf("PROCESS pid=%.0f name=%s\n", pid, gets_(args, "name"));
      } else if (!strcmp(name, "thread_name") && gets_(args, "name")) {
        int *s = has_tid ? thread_slot((int)pid, (int)tid) : NULL;
        if (!has_tid)
          bad(i, "thread_name without tid");
        if (s)
          *s = 1;
        printf("TRACK pid=%.0f tid=%.0f name=%s\n", pid, tid,
               gets_(args, "name"));
      }
      continue;
    }
    if (!has_pid || !has_tid || pid != (long)pid || tid != (long)tid) {
      bad(i, "no integer pid and tid");
      continue;
    }
    thread_slot((int)pid, (int)tid);
    for (int t = 0; t < nthreads; t++)
      if (threads[t].pid == (int)pid && threads[t].tid == (int)tid)
        threads[t].used = 1;
    proc_slot((int)pid);
    for (int t = 0; t < nprocs; t++)
      if (procs[t].pid == (int)pid)
        procs[t].used = 1;
    if (!getnum(e, "ts", &ts) || ts < 0) {
      bad(i, "no ts >= 0");
      continue;
    }
    const char *cat = gets_(e, "cat");
    switch (*ph) {
    case 'X':
      if (!getnum(e, "dur", &dur) || dur < 0)
        bad(i, "X event without dur >= 0");
      break;
    case 'i':
    case 'I':
      break;
    case 's':
    case 't':
    case 'f': {
      double id;
      if (!getnum(e, "id", &id)) {
        bad(i, "flow event without a numeric id");
        break;
      }
      struct flow *fl = flow_of((long)id);
      if (*ph == 's') {
        fl->s++;
        fl->ts_s = ts;
      } else if (*ph == 'f') {
        fl->f++;
        fl->ts_f = ts;
      }
      printf("FLOW ph=%s pid=%.0f tid=%.0f id=%.0f name=%s\n", ph, pid, tid,
             id, name);
      continue;
    }
    default:
      bad(i, "unknown ph");
      continue;
    }
    printf("EV ph=%s pid=%.0f tid=%.0f cat=%s name=%s", ph, pid, tid,
           cat ? cat : "-", name);
    if (args && args->t == J_OBJ)
      print_args(args);
    printf("\n");
  }
  for (size_t i = 0; i < nflows; i++)
    if (flows[i].s != 1 || flows[i].f != 1 || flows[i].ts_f < flows[i].ts_s) {
      errors++;
      fprintf(stderr, "tl_check: flow %ld: %d start(s), %d end(s)%s\n",
              flows[i].id, flows[i].s, flows[i].f,
              flows[i].ts_f < flows[i].ts_s ? ", ends before it starts" : "");
    }
  for (int t = 0; t < nthreads; t++)
    if (threads[t].used && !threads[t].named) {
      errors++;
      fprintf(stderr, "tl_check: track pid %d tid %d has no thread_name\n",
              threads[t].pid, threads[t].tid);
    }
  for (int t = 0; t < nprocs; t++)
    if (procs[t].used && !procs[t].named) {
      errors++;
      fprintf(stderr, "tl_check: pid %d has no process_name\n", procs[t].pid);
    }
  printf("FLOWS %zu\n", nflows);
  free_tree(root);
  free(flows);
  free(buf);
  if (errors) {
    fprintf(stderr, "tl_check: %s: %d problem(s)\n", argv[1], errors);
    return 1;
  }
  return 0;
}
