# Helpers the benchmark scripts share; source it after setting OUT.
#   median       : the median of the numbers on stdin, one per line
#   ratio A B    : A / B to three decimals
#   wall CMD...  : runs CMD (output discarded) and prints its wall seconds; stops the script if it fails
#   probe_ends F : F's video frames, video end and audio end
#   free_port    : a free TCP port on loopback (for a coordinator's --listen and --http)
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a / b}'; }
wall() { /usr/bin/time -f "%e" -o "$OUT/t.tmp" "$@" >/dev/null 2>"$OUT/last.stderr" || { tail -5 "$OUT/last.stderr"; exit 1; }; cat "$OUT/t.tmp"; }
# probe_ends FILE : its video frames, and where its video and its audio end (latest packet pts + duration)
probe_ends() {
    local f=$1 frames v a
    frames=$(ffprobe -v error -count_packets -select_streams v:0 -show_entries stream=nb_read_packets -of csv=p=0 "$f")
    v=$(ffprobe -v error -select_streams v:0 -show_entries packet=pts_time,duration_time -of csv=p=0 "$f" \
        | awk -F, '{e = $1 + $2; if (e > m) m = e} END {printf "%.3f", m}')
    a=$(ffprobe -v error -select_streams a:0 -show_entries packet=pts_time,duration_time -of csv=p=0 "$f" \
        | awk -F, '{e = $1 + $2; if (e > m) m = e} END {printf "%.3f", m}')
    echo "$frames $v $a"
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
