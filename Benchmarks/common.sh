# Helpers the benchmark scripts share; source it after setting OUT.
#   median       : the median of the numbers on stdin, one per line
#   ratio A B    : A / B to three decimals
#   wall CMD...  : runs CMD (output discarded) and prints its wall seconds; stops the script if it fails
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a / b}'; }
wall() { /usr/bin/time -f "%e" -o "$OUT/t.tmp" "$@" >/dev/null 2>"$OUT/last.stderr" || { tail -5 "$OUT/last.stderr"; exit 1; }; cat "$OUT/t.tmp"; }
