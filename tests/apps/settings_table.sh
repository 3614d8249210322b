#!/usr/bin/env bash
# settings_table.sh TREEMATCH TABLE_FILE: the settings table of TABLE_FILE (rows "| `name` | fast |
# default | strong | ... |") lists every option `treematch map --preset P --verbose` prints, with
# the value each preset gives it, and no option it does not print.
set -euo pipefail
treematch=$1 table=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
printf '0 1\n1 0\n' > "$scratch/pair.mat"
column=2
for preset in fast default strong; do
  "$treematch" map -m "$scratch/pair.mat" -t "pack:1 core:2 pu:1" --preset "$preset" --verbose \
    2>&1 >/dev/null | grep -E '^[a-z_.]+ = ' | grep -v '^preset = ' | sort > "$scratch/printed"
  awk -F' [|] ' -v column="$column" '/^[|] `[a-z_.]+` [|]/ {
      name = $1; sub(/^[|] `/, "", name); sub(/`$/, "", name); print name " = " $column
    }' "$table" | sort > "$scratch/documented"
  if ! diff "$scratch/printed" "$scratch/documented" > "$scratch/diff"; then
    echo "$table: the $preset column differs from what --preset $preset --verbose prints" \
         "(< printed, > table): $(grep '^[<>]' "$scratch/diff" | tr '\n' ';')"
    exit 1
  fi
  column=$((column + 1))
done
echo "settings table: $(wc -l < "$scratch/printed") options, every preset's value as printed"
