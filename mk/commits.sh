#!/usr/bin/env bash
# mk/commits.sh — every commit after the one that added this script keeps
# the commit message form of CONTRIBUTING.md, as Go's own history does:
#
#   - the subject is "pkg: what changed" (one or more paths or areas, a
#     colon, a space, then what changed) in at most 72 characters;
#   - the second line, if any, is blank;
#   - a commit that changes more than 50 lines has a body: why, and the
#     figures.
#
# Commits before this script were written before the rule and are not
# checked. In a shallow clone that lacks the commit that added it, every
# commit the clone has is checked. Exits 1 naming each commit that breaks
# the rule, and why. RANGE=a..b checks that range instead.
set -euo pipefail
cd "$(dirname "$0")/.."

self=mk/commits.sh
maxSubject=72
maxLinesWithoutBody=50

if ! git rev-parse --git-dir >/dev/null 2>&1; then
	echo "commits: not a git checkout: nothing to check"
	exit 0
fi

range=${RANGE:-}
if [ -z "$range" ]; then
	added=$(git log --format=%H --diff-filter=A -- "$self" | tail -n 1)
	if [ -n "$added" ]; then
		range="$added..HEAD"
	else
		range=HEAD
	fi
fi

bad=0
checked=0
for c in $(git rev-list --no-merges "$range"); do
	checked=$((checked + 1))
	subject=$(git log -1 --format=%s "$c")
	second=$(git log -1 --format=%B "$c" | sed -n 2p)
	body=$(git log -1 --format=%b "$c" | grep -v '^[[:space:]]*$' | grep -Ecv '^(Signed-off-by|Co-authored-by|Change-Id|Fixes|Updates): ' || true)
	lines=$(git show --numstat --format= "$c" | awk '$1 != "-" { n += $1 + $2 } END { print n + 0 }')
	short=$(git log -1 --format=%h "$c")
	why=()
	if [ ${#subject} -gt $maxSubject ]; then
		why+=("subject is ${#subject} characters (at most $maxSubject)")
	fi
	if ! printf '%s' "$subject" | grep -Eq '^[A-Za-z0-9_.*/{},+ -]+: [^ ]'; then
		why+=("subject is not \"pkg: what changed\"")
	fi
	if [ -n "$second" ]; then
		why+=("the line after the subject is not blank")
	fi
	if [ "$lines" -gt $maxLinesWithoutBody ] && [ "$body" -eq 0 ]; then
		why+=("changes $lines lines (over $maxLinesWithoutBody) and has no body saying why")
	fi
	if [ ${#why[@]} -gt 0 ]; then
		bad=$((bad + 1))
		printf 'commits: %s %s\n' "$short" "$(printf '%s' "$subject" | cut -c1-80)"
		for w in "${why[@]}"; do printf '    %s\n' "$w"; done
	fi
done

if [ $bad -gt 0 ]; then
	echo "commits: $bad of $checked commits in $range break the form of CONTRIBUTING.md"
	exit 1
fi
echo "commits: $checked commits in $range keep the form of CONTRIBUTING.md"
