#!/bin/sh
# TAP test: every document the tree cites is in the tree.
#   1. no file names a document that lives outside the repository (the
#      external design and ABI notes, or the mechanism documents docs/ now
#      restates, by their file names);
#   2. every docs/NAME.md cited anywhere exists;
#   3. every part of a docs file that is cited exists in it: "section N",
#      "sections N-M, P and Q", "§N", a number right after the file name
#      ("docs/x.md 7.2, 7.6"), "contract N", and a quoted heading
#      ("docs/x.md "Title"").  A bare "§N" refers to the docs file cited
#      last before it in the same file (in a docs file: to that file);
#   4. docs/README.md lists every file of docs/.
# A section N exists when a heading's text starts with N ("## 7.", "### 7.4"),
# a contract N when a heading starts with "Contract N"; a quoted title must be
# a heading's whole text (case ignored).  Comment leaders (/*, *, //, #) are
# dropped and lines joined, so a citation may be split over lines.
set -u
S=${OMPEMU_SRCDIR:?OMPEMU_SRCDIR is not set}
cd "$S" || { echo "Bail out! cannot enter $S"; exit 1; }
T=$(mktemp -d) || { echo "Bail out! mktemp failed"; exit 1; }
trap 'rm -rf "$T"' EXIT

n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; sed 's/^/# /' "$2"; }
report() { if [ -s "$2" ]; then nok "$1" "$2"; else ok "$1"; fi; }

roots=
for r in README.md docs src include tests examples m4 configure.ac \
         Makefile.am bootstrap.sh .ci ompemu.pc.in; do
  [ -e "$r" ] && roots="$roots $r"
done
# Text files of the tree; build outputs of an in-tree build left out.
scan() {
  # shellcheck disable=SC2086
  (set -f; grep -rIl $GREP_OPTS "$@" -- $roots 2>/dev/null)
}
GREP_OPTS="--exclude-dir=.git --exclude-dir=.libs --exclude-dir=.deps \
  --exclude-dir=work* --exclude-dir=corpus --exclude-dir=autom4te.cache \
  --exclude=*.log --exclude=*.trs --exclude=*.o --exclude=*.lo \
  --exclude=doc_refs.sh"

# 1. Documents outside the repository, named by file.
# (Written so that this file does not match itself.)
outside='ABI-llvm1[4]|ABI-clan[g]|DESIG[N][.]md|ClangOffloadWrappe[r]|OpenMP-declare-targe[t][.]md|OpenMP-descriptor-managemen[t][.]md|declare_target_indirec[t][.]md|share[d]/'
for f in $(scan -E "$outside"); do
  grep -nE "$outside" "$f" | sed "s|^|$f:|"
done >"$T/outside"
report "no file names a document outside the repository" "$T/outside"

# 2 and 3: citations of docs/ files.
[ -d docs ] && docs=$(ls docs/*.md 2>/dev/null) || docs=
files=$(scan -E 'docs/|§')
# Word splitting of $docs and $files is intended (paths have no blanks).
# shellcheck disable=SC2086
LC_ALL=C awk '
# One problem: KIND "doc" (no such file) or "part" (no such part).
function problem(kind, msg) { print kind "\t" FNAME ": " msg }
function check_part(doc, what, id) {
  if (!(doc in have)) return
  if (what == "contract") {
    if (!((doc SUBSEP id) in contract))
      problem("part", doc " contract " id ": no such contract")
  } else if (!((doc SUBSEP id) in sec))
    problem("part", doc " section " id ": no such section")
}
# Check every number of LIST ("4-6, 7.2 and §11") in DOC.
function check_list(doc, what, list,   n, parts, i, a, b, lo, hi, pre, k) {
  gsub(/§/, "", list)
  gsub(/–/, "-", list)
  gsub(/[ ]*(,|and)[ ]*/, ";", list)
  gsub(/[ ]/, "", list)
  n = split(list, parts, ";")
  for (i = 1; i <= n; i++) {
    if (parts[i] == "") continue
    if (!match(parts[i], /-/)) { check_part(doc, what, parts[i]); continue }
    a = substr(parts[i], 1, RSTART - 1); b = substr(parts[i], RSTART + 1)
    pre = a; sub(/[0-9]+$/, "", pre)        # "7." of "7.1-7.3", "" of "4-6"
    if (index(b, pre) != 1) { check_part(doc, what, a); check_part(doc, what, b); continue }
    lo = substr(a, length(pre) + 1) + 0; hi = substr(b, length(pre) + 1) + 0
    if (substr(b, length(pre) + 1) ~ /\./ || hi < lo || hi - lo > 50) {
      check_part(doc, what, a); check_part(doc, what, b); continue
    }
    for (k = lo; k <= hi; k++) check_part(doc, what, pre k)
  }
}
# The citation of DOC whose text follows in T; returns how much of T it used.
function cite(doc, t,   used, title, what) {
  if (!(doc in have)) problem("doc", doc ": no such file")
  if (match(t, /^[ ]*[,(]?[ ]*"[A-Z][^"]*"/) && RLENGTH < 80) {
    title = substr(t, 1, RLENGTH); sub(/^[^"]*"/, "", title); sub(/"$/, "", title)
    gsub(/[ ]+/, " ", title)
    if ((doc in have) && !((doc SUBSEP tolower(title)) in heading))
      problem("part", doc " \"" title "\": no such heading")
    return RLENGTH
  }
  used = 0
  if (match(t, /^[ ]*\(?[ ]*/)) { used = RLENGTH; t = substr(t, RLENGTH + 1) }
  what = "section"
  if (match(t, /^(sections?[ ]+|§)/)) { used += RLENGTH; t = substr(t, RLENGTH + 1) }
  else if (match(t, /^contracts?[ ]+/)) { used += RLENGTH; t = substr(t, RLENGTH + 1); what = "contract" }
  else if (t !~ /^[0-9]/) return 0
  if (!match(t, LIST)) return 0
  used += RLENGTH
  check_list(doc, what, substr(t, 1, RLENGTH))
  return used
}
function scan_text(text,   last, rest, pos, m, prev, after) {
  last = (FNAME ~ /^docs\/[^\/]*\.md$/) ? FNAME : ""
  rest = text
  while (match(rest, /docs\/[-A-Za-z0-9_.]+\.md|§/)) {
    m = substr(rest, RSTART, RLENGTH)
    prev = RSTART > 1 ? substr(rest, RSTART - 1, 1) : " "
    pos = RSTART + RLENGTH
    after = substr(rest, pos)
    if (m == "§") {
      if (last != "" && match(after, LIST)) {
        pos += RLENGTH
        check_list(last, "section", substr(after, 1, RLENGTH))
      }
    } else if (prev !~ "[-A-Za-z0-9_./]") {
      if (FNAME !~ /^docs\//) last = m
      pos += cite(m, after)
    }
    rest = substr(rest, pos)
  }
}
BEGIN {
  NUM = "[0-9]+(\\.[0-9]+)*"
  LIST = "^" NUM "([ ]*(,|and|-|–)[ ]*(§)?" NUM ")*"
}
FNR == 1 && mode == "scan" && text != "" { scan_text(text) }
FNR == 1 { FNAME = FILENAME; text = ""; fence = 0 }
mode == "index" {
  if (FNR == 1) have[FILENAME] = 1
  if ($0 ~ /^```/) { fence = !fence; next }
  if (fence || $0 !~ /^#/) next
  h = $0; sub(/^#+[ ]*/, "", h); sub(/[ ]+$/, "", h)
  heading[FILENAME SUBSEP tolower(h)] = 1
  id = h; sub(/[ ].*/, "", id); sub(/\.$/, "", id)
  if (id ~ /^[0-9]+(\.[0-9]+)*$/) sec[FILENAME SUBSEP id] = 1
  if (match(h, /^Contract [0-9]+/)) contract[FILENAME SUBSEP substr(h, 10, RLENGTH - 9)] = 1
  next
}
mode == "scan" {
  line = $0
  sub(/^[ \t]*(\/\*+|\*+|\/\/+|#+)?[ \t]*/, "", line)
  text = text " " line
}
END { if (mode == "scan" && text != "") scan_text(text) }
' mode=index $docs mode=scan $files >"$T/refs"
grep '^doc	' "$T/refs" | cut -f2- | sort -u >"$T/docs"
grep '^part	' "$T/refs" | cut -f2- | sort -u >"$T/parts"
report "every cited docs/ file exists" "$T/docs"
report "every cited section, contract and heading of a docs/ file exists" "$T/parts"

# 4. The index lists every file.
for f in $docs; do
  b=${f#docs/}
  [ "$b" = README.md ] && continue
  grep -q "($b)" docs/README.md 2>/dev/null || echo "docs/README.md does not list $b"
done >"$T/index"
[ -n "$docs" ] || echo "no docs/*.md files" >>"$T/index"
report "docs/README.md lists every file of docs/" "$T/index"

echo "1..$n"
exit 0
