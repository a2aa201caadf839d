#!/bin/sh
# Compare our Brändi Dog outcome sets with libdog's, card by card, on seeded self-play positions.
#
#   scripts/compare_libdog.sh LIBDOG_DIR [POSITIONS] [SEED]
#
# LIBDOG_DIR: a checkout of libdog (https://github.com/leopoldsedev/libdog, GPL-3.0); nothing
# is fetched. Its sources are copied into a temporary directory with our small harness
# (scripts/compare_libdog_harness.cpp) and built there with g++; nothing of libdog enters
# this repository. One switch is set in that copy: INCLUDE_AVOID_FINISH_IN_POSSIBLE_MOVES
# (Constants.hpp) to true, so that libdog also lists the 7's parts that pass the own start
# field instead of entering the home, which its other cards already list (entering is
# optional in both engines). POSITIONS (default 10000) positions come from seeded 4-player
# self-play (SEED, default 0); every card of the deck is asked on each. Prints the counts,
# then every disagreement with the position. RECORD=FILE: also writes a small sample of the
# positions with their outcome sets there (the suite's tests/engine/data/brandi_outcomes.json).
set -eu
[ $# -ge 1 ] || { echo "usage: $0 LIBDOG_DIR [POSITIONS] [SEED]" >&2; exit 2; }
LIBDOG=$1
POSITIONS=${2:-10000}
SEED=${3:-0}
HERE=$(cd "$(dirname "$0")" && pwd)
PY=${PYTHON:-$HERE/../.venv/bin/python}
[ -f "$LIBDOG/include/libdog/DogGame.hpp" ] || { echo "$LIBDOG is not a libdog checkout (no include/libdog/DogGame.hpp)" >&2; exit 2; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cp -r "$LIBDOG/include" "$LIBDOG/src" "$WORK/"
sed -i 's/#define INCLUDE_AVOID_FINISH_IN_POSSIBLE_MOVES (false)/#define INCLUDE_AVOID_FINISH_IN_POSSIBLE_MOVES (true)/' \
    "$WORK/include/libdog/Constants.hpp"
grep -q 'INCLUDE_AVOID_FINISH_IN_POSSIBLE_MOVES (true)' "$WORK/include/libdog/Constants.hpp" \
    || { echo "this libdog has no INCLUDE_AVOID_FINISH_IN_POSSIBLE_MOVES switch to set" >&2; exit 2; }
echo "building the harness with $(g++ --version | head -1)" >&2
g++ -std=c++20 -O2 -DNDEBUG -w -I"$WORK/include" "$WORK"/src/*.cpp "$HERE/compare_libdog_harness.cpp" -o "$WORK/harness"
echo "our side: $POSITIONS positions, seed $SEED" >&2
"$PY" "$HERE/compare_libdog.py" emit "$WORK/queries.tsv" "$WORK/ours.jsonl" --positions "$POSITIONS" --seed "$SEED"
echo "libdog's side" >&2
"$WORK/harness" < "$WORK/queries.tsv" > "$WORK/theirs.tsv"
"$PY" "$HERE/compare_libdog.py" compare "$WORK/queries.tsv" "$WORK/ours.jsonl" "$WORK/theirs.tsv"
if [ -n "${RECORD:-}" ]; then  # also a sample for the suite (tests/engine/data)
    "$PY" "$HERE/compare_libdog.py" record "$WORK/queries.tsv" "$WORK/ours.jsonl" "$WORK/theirs.tsv" "$RECORD"
fi
