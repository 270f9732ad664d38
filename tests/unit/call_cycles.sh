#!/bin/sh
# call_cycles.sh: check that no two object files of a library call each
# other in a circle.  The call graph is read from the objects themselves:
# file A depends on file B when A has an undefined symbol that B defines
# (nm), functions and data alike; a cycle is a set of files that all reach
# each other.  With --doors DIR, objects whose path contains /DIR/ are the
# library's front doors (the exported entry points): no other object may
# use a symbol one of them defines.
#
# Usage: call_cycles.sh [--doors DIR] [--name NAME] OBJECT...|DIRECTORY...
#   OBJECT     a .o, or a libtool .lo (its PIC object is read)
#   DIRECTORY  every libtool object (.lo) below it (stale ones included:
#              prefer naming the objects)
# Without arguments: libomptarget.so's objects, $LIBOMPTARGET_OBJECTS
# (the Makefile's list, relative to $OMPEMU_BUILDDIR), doors in abi/.
# Prints TAP; exit status 1 on a finding.
set -u
doors=
name=
if [ $# -eq 0 ]; then
  B=${OMPEMU_BUILDDIR:?OMPEMU_BUILDDIR is not set}
  [ -n "${LIBOMPTARGET_OBJECTS:-}" ] || {
    echo "1..0 # SKIP LIBOMPTARGET_OBJECTS is not set (run by make check)"
    exit 0; }
  set -- --doors abi --name libomptarget
  for o in $LIBOMPTARGET_OBJECTS; do
    set -- "$@" "$B/$o"
  done
fi
while [ $# -gt 0 ]; do
  case $1 in
    --doors) doors=$2; shift 2 ;;
    --name) name=$2; shift 2 ;;
    *) break ;;
  esac
done
NM=${NM:-nm}

objs=
for a in "$@"; do
  if [ -d "$a" ]; then
    for lo in $(find "$a" -name '*.lo' | LC_ALL=C sort); do
      objs="$objs $lo"
    done
  else
    objs="$objs $a"
  fi
done
[ -n "$objs" ] || { echo "1..0 # SKIP no objects found in $*"; exit 0; }

# The object file behind a libtool .lo.
real_object() {
  case $1 in
    *.lo)
      pic=$(sed -n "s/^pic_object='\(.*\)'$/\1/p" "$1")
      [ "$pic" = none ] && pic=$(sed -n "s/^non_pic_object='\(.*\)'$/\1/p" "$1")
      echo "$(dirname "$1")/$pic" ;;
    *) echo "$1" ;;
  esac
}

# One line per symbol: OBJECT D|U SYMBOL.
table=$(for o in $objs; do
  f=$(real_object "$o")
  [ -f "$f" ] || { echo "MISSING $o"; continue; }
  short=$(echo "$o" | sed 's|.*/src/|src/|; s|libomptarget_la-||; s|\.l\{0,1\}o$|.c|')
  $NM -P -g "$f" | awk -v o="$short" '
    $2 == "U" { print o, "U", $1; next }
    $2 ~ /^[A-TV-Z]$/ { print o, "D", $1 }'
done)
if echo "$table" | grep -q '^MISSING '; then
  echo "Bail out! object not built: $(echo "$table" | sed -n 's/^MISSING //p' | head -1)"
  exit 1
fi

echo "$table" | awk -v doors="$doors" -v libname="${name:-objects}" '
  $2 == "D" { def[$3] = $1; nodes[$1] = 1; next }
  $2 == "U" { use[++nuse] = $1 SUBSEP $3; nodes[$1] = 1 }
  END {
    n = 0
    for (x in nodes) id[x] = ++n
    for (x in nodes) name[id[x]] = x
    for (k = 1; k <= nuse; k++) {
      split(use[k], p, SUBSEP)
      a = p[1]; s = p[2]
      if (!(s in def) || def[s] == a) continue
      b = def[s]
      if (!((a, b) in edge)) edge[a, b] = s
      else if (length(edge[a, b]) < 60) edge[a, b] = edge[a, b] ", " s
      reach[id[a], id[b]] = 1
      if (doors != "" && index(b, "/" doors "/") && !index(a, "/" doors "/"))
        doorbad[a] = doorbad[a] " " s " (" b ")"
    }
    for (k = 1; k <= n; k++)
      for (i = 1; i <= n; i++)
        if ((i, k) in reach)
          for (j = 1; j <= n; j++)
            if ((k, j) in reach) reach[i, j] = 1
    tests = doors != "" ? 2 : 1
    print "1.." tests
    bad = 0
    for (i = 1; i <= n; i++) {
      if (i in done) continue
      members = ""
      for (j = 1; j <= n; j++)
        if (j != i && ((i, j) in reach) && ((j, i) in reach)) {
          members = members " " j
          done[j] = 1
        }
      if (members == "") continue
      bad++
      members = i members
      m = split(members, ms, " ")
      print "# cycle among:"
      for (x = 1; x <= m; x++)
        for (y = 1; y <= m; y++)
          if ((name[ms[x]], name[ms[y]]) in edge)
            print "#   " name[ms[x]] " -> " name[ms[y]] ": " edge[name[ms[x]], name[ms[y]]]
    }
    printf "%s 1 - no call cycles between the %d files of %s\n", \
      bad ? "not ok" : "ok", n, libname
    if (doors != "") {
      dbad = 0
      for (a in doorbad) { print "#   " a " uses" doorbad[a]; dbad++ }
      printf "%s 2 - no file of %s outside %s/ calls an entry point in %s/\n", \
        dbad ? "not ok" : "ok", libname, doors, doors
      bad += dbad
    }
    exit bad ? 1 : 0
  }'
