#!/bin/bash
# man_pages_test.sh TREEMATCH SOURCE_DIR MAN_DIR: every long option `treematch SUB --help` lists
# (and those of `treematch --help`) has an entry in that command's page source
# (apps/man/treematch[-SUB].1.scd: a line starting with *--option or *-x, --option); no page
# source has a line starting with '.' (roff would take it for a request and drop it); every built
# page in MAN_DIR renders with `man --warnings -l` at 80 columns without a warning, to non-empty
# text. Prints "man pages: N pages, every option documented", else one line naming the page and
# what is missing, and exits 1.
set -uo pipefail
treematch=$1
source_dir=$2
man_dir=$3
fail() { echo "$1"; exit 1; }

for sub in "" map eval convert generate batch bind; do
  page=treematch${sub:+-$sub}.1
  scd=$source_dir/apps/man/$page.scd
  [[ -f $scd ]] || fail "$page: no source $scd"
  # shellcheck disable=SC2086  # no subcommand: treematch --help
  help=$("$treematch" $sub --help) || fail "$page: treematch ${sub:+$sub }--help failed"
  # The option column only: "  -m,--matrix TEXT ..." or "  --hwthreads ...", not the help text.
  options=$(sed -nE 's/^  (-[A-Za-z],)?(--[a-z0-9][a-z0-9-]*).*/\2/p' <<< "$help" | sort -u)
  [[ -n $options ]] || fail "$page: no option found in treematch ${sub:+$sub }--help"
  for option in $options; do
    grep -qE -- "^\*(-[A-Za-z], )?$option([^a-z0-9-]|$)" "$scd" ||
      fail "$page: no entry for $option (treematch ${sub:+$sub }--help lists it) in $scd"
  done
done

for scd in "$source_dir"/apps/man/*.scd; do
  line=$(grep -n '^\.' "$scd" | head -1)
  [[ -z $line ]] || fail "$(basename "$scd" .scd): line ${line%%:*} starts with '.' in $scd"
done

count=0
for scd in "$source_dir"/apps/man/*.scd; do
  page=$(basename "$scd" .scd)
  built=$man_dir/$page
  [[ -s $built ]] || fail "$page: not built ($built missing or empty)"
  warnings=$(MANWIDTH=80 MANPAGER=cat PAGER=cat man --warnings -l "$built" 2>&1 >/dev/null)
  [[ -z $warnings ]] || fail "$page: man --warnings: $(head -1 <<< "$warnings")"
  text=$(MANWIDTH=80 MANPAGER=cat PAGER=cat man -l "$built" 2>/dev/null)
  [[ -n $text ]] || fail "$page: man -l shows nothing"
  grep -q '^NAME' <<< "$text" || fail "$page: man -l shows no NAME section"
  count=$((count + 1))
done
echo "man pages: $count pages, every option documented"
