#!/bin/sh
# Writes expected/NAME for every line of cases.txt with a trec_eval 10.0 binary:
#   TREC_EVAL=/path/to/trec_eval sh make_expected.sh      (run in this folder)
set -e
mkdir -p expected
grep -v '^#' cases.txt | while IFS='|' read -r name args; do
  name=$(echo "$name" | tr -d ' ')
  # shellcheck disable=SC2086
  "$TREC_EVAL" $args > "expected/$name"
done
