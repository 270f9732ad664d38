#!/bin/sh
# TAP: no lock of the cuda and hsa plugins is held across a call into the
# driver.  A static check beside the runtime ones of test_cuda_locks: in
# each source file, between pthread_mutex_lock(&X) and its unlock, no line
# may call the driver ("cu.cu...", "H.hsa_...") or a plugin helper that
# does.  Exempt, as documented where they are declared: fptr_lock (the
# writes of the fptr table into modules, serialised) and hsa_st.lock (the
# HSA runtime's one-time load and its teardown, as pthread_once would).
# A crude scanner: it follows lock/unlock lines in order within a function,
# not the code's branches (an unlock indented deeper than its lock is an
# early exit: the rest of its branch is unlocked, what follows locked).
set -u
S=${OMPEMU_SRCDIR:?OMPEMU_SRCDIR is not set}
# Plugin functions that call the driver.
HELPERS='cu_use|cu_mem_alloc|cu_stream_get|cu_stream_put|cu_pool_alloc|cu_pool_free|cu_pool_trim|write_fptr_globals|stager_get|stager_free|pinned_get|hsa_mem_alloc|hsa_mem_free|hsa_copy_h2d|hsa_copy_d2h|hsa_fptr_apply|hsa_agent_init|load_code_object|image_free|hsa_signal_wait_done|hsa_ops_finish'
EXEMPT='fptr_lock|hsa_st\.lock'
echo "1..2"
n=0
for plugin in cuda hsa; do
  n=$((n + 1))
  out=$(awk -v helpers="$HELPERS" '
    function indent(line) { match(line, /^[ \t]*/); return RLENGTH }
    function check(line) {
      if (released && indent(line) >= released)
        return
      released = 0
      if (depth && (line ~ /(^|[^a-z_])(cu\.cu[A-Z]|H\.hsa_)/ ||
                    line ~ ("(^|[^a-z_])(" helpers ")\\(")))
        print FILENAME ":" FNR ": driver call under the lock taken at " where[depth] ": " line
    }
    FNR == 1 || /^}/ { depth = 0; released = 0 }
    /pthread_mutex_lock\(/ && !/'"$EXEMPT"'/ {
      depth++; at[depth] = indent($0); where[depth] = FILENAME ":" FNR; next
    }
    # An unlock deeper in than its lock is an early exit from a branch: the
    # rest of that branch runs unlocked, the code after it still locked.
    /pthread_mutex_unlock\(/ && !/'"$EXEMPT"'/ {
      if (depth && indent($0) <= at[depth]) depth--
      else if (depth) released = indent($0)
      next
    }
    { check($0) }' "$S"/src/plugins/$plugin/*.c)
  if [ -z "$out" ]; then
    echo "ok $n - $plugin plugin: no driver call while one of its locks is held"
  else
    echo "not ok $n - $plugin plugin: driver calls under a lock"
    echo "$out" | sed 's/^/# /'
  fi
done
