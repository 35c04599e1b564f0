#!/bin/sh
# make bench: the cost of KRSI per hooked call against a kernel booted
# without it and against mainline's trampolines, and the appliance's build
# and boot numbers.  Prints a table and writes it to build/bench/results.txt
# (build/ARCH/bench/results.txt for `run-bench.sh ARCH`, make ARCH=ARCH
# bench: arm64 and s390x, which have no trampoline rows: 6.1 attaches no
# trampoline to a hook there).
#
# Four boots of the test image: lsm= without krsi (the baseline), lsm= with
# capabilities only, the appliance's kernel (every other configuration,
# interleaved in one boot, see tests/bench/krsi_bench.c, the calls under the
# boot policies included), and one with the boot policies attached by /init
# (boot time).  Software emulation makes absolute times unstable: read the ratios.
set -u
. tests/lib/boot.sh

arch=${1:-x86_64}
build=${BUILD:-build}
images=image karch=x86 kname=bzImage
case $arch in
arm64) build=$build/arm64 images=image/arm64 karch=arm64 kname=Image ;;
s390x) build=$build/s390x images=image/s390x karch=s390 ;;
esac
# The appliance's kernel without its boot policies (kernel/kernel.mk):
# krsi-empty is a KRSI with no program, and each boot attaches what it
# measures.
kernel=$build/kernel-bare/arch/$karch/boot/$kname
dir=$build/bench
initrd=$build/test/bench.initramfs.cpio.gz
out=$dir/results.txt
mkdir -p "$dir"

# bench NAME APPEND: boot with APPEND, keep the guest's "bench" lines.
# Under TCG the kernel's clocksource watchdog finds the TSC unstable and
# falls back to jiffies (4 ms steps): tsc=reliable keeps a clock that can
# time a system call.  norandmaps: with address space randomisation, the
# benchmark's own layout, drawn once per boot, moved fork+exec's count by
# 3% from one boot to the next.
bench() {
	name=$1 append=$2
	shift 2
	boot_guest "$name" "$dir" --arch "$arch" --icount --kernel "$kernel" \
		--initrd "$initrd" --timeout 1800 --append "tsc=reliable norandmaps $append" "$@" ||
		echo "run-bench: the $name boot failed (see $dir/$name.console.log)" >&2
	kernel_reports "$name" "$dir/$name.console.log" >"$dir/$name.reports"
	[ -s "$dir/$name.reports" ] && cat "$dir/$name.reports" >&2
	grep '^bench ' "$dir/$name.results" >"$dir/$name.lines"
}

policies=$(grep -v -e '^#' -e '^[[:space:]]*$' rootfs/etc/krsi/boot.conf | paste -sd, -)

# The curve (krsi_bench's "curve" lines): pread() against the number of
# allow-all programs on file_permission, KRSI and trampoline links.
# Under -icount shift=0 a nanosecond is an instruction.
curve_table() {
	echo "pread() of one byte (file_permission) with N allow-all programs"
	echo "(same boot), instructions per call, and what the N programs add:"
	awk '
	$1 == "curve" && $2 ~ /-refused$/ { refused[++nr] = $3 " " $4 " " $2; next }
	$1 == "curve" { med[$2 " " $3] = $4; if (!($3 in seen)) { seen[$3] = 1; ns[++n] = $3 } }
	END {
		printf("%4s %8s %8s %12s %8s %9s\n", "N", "krsi", "added", "trampoline",
		       "added", "x tramp")
		k0 = med["krsi 0"]
		if (("trampoline 0") in med) t0 = med["trampoline 0"]
		for (i = 1; i <= n; i++) {
			N = ns[i]; k = med["krsi " N]
			t = "-"; ta = "-"; x = "-"
			if (("trampoline " N) in med) {
				t = med["trampoline " N]; ta = t - t0; x = sprintf("%.3f", k / t)
				tmax = N
			}
			printf("%4d %8d %8d %12s %8s %9s\n", N, k, k - k0, t, ta, x)
			kmax = N
		}
		printf("first program: krsi %d, trampoline %s\n", med["krsi 1"] - k0,
		       ("trampoline 1" in med) ? med["trampoline 1"] - t0 : "-")
		if (tmax)
			printf("each further program, 1 to %d: krsi %.1f, trampoline %.1f\n", tmax,
			       (med["krsi " tmax] - med["krsi 1"]) / (tmax - 1),
			       (med["trampoline " tmax] - med["trampoline 1"]) / (tmax - 1))
		printf("each further program, 1 to %d: krsi %.1f\n", kmax,
		       (med["krsi " kmax] - med["krsi 1"]) / (kmax - 1))
		for (r = 1; r <= nr; r++) {
			split(refused[r], f, " ")
			sub(/-refused$/, "", f[3])
			printf("attach of program %d refused: %s (%s)\n", f[1], f[2], f[3])
		}
	}' "$dir/curve.lines"
}

# Each boot policy alone (krsi_bench's "policy" lines): what it adds to
# open and exec against none, measured in the same rounds.
policy_table() {
	echo "each boot policy attached alone (same boot), and what it adds per call"
	echo "against none in the same rounds:"
	awk '
	$1 == "policy" {
		med[$2 " " $3] = $4
		if ($2 == "open" && $3 != "none") names[++n] = $3
	}
	END {
		o0 = med["open none"]; e0 = med["exec none"]
		printf("%-16s %8s %8s %10s %8s\n", "policy", "open", "added", "exec", "added")
		printf("%-16s %8d %8s %10d %8s\n", "none", o0, "-", e0, "-")
		for (i = 1; i <= n; i++) {
			p = names[i]
			printf("%-16s %8d %8d %10d %8d\n", p, med["open " p],
			       med["open " p] - o0, med["exec " p], med["exec " p] - e0)
		}
	}' "$dir/krsi.results"
}

# The curve as a plot: gnuplot's SVG terminal, $dir/curve.svg.
curve_plot() {
	awk '$1 == "curve" && $2 !~ /-refused$/ { v[$3 " " $2] = $4; n[$3] = 1 }
	END { for (N in n) print N, v[N " krsi"], ((N " trampoline") in v) ? v[N " trampoline"] : "-" }' \
		"$dir/curve.lines" | sort -n >"$dir/curve.dat"
	tramp=", '' using 1:3 with linespoints pointtype 6 title 'trampoline links (BPF_MAX_TRAMP_LINKS: 38)'"
	[ "$arch" = x86_64 ] || tramp=
	gnuplot <<-EOF
	set terminal svg size 760,460 dynamic noenhanced font "sans,13"
	set output "$dir/curve.svg"
	set title "pread() of one byte, $arch: instructions per call against the programs on file_permission"
	set xlabel "allow-all programs on the hook"
	set ylabel "instructions per call"
	set datafile missing "-"
	set key left top
	set grid
	set xrange [0:66]
	set xtics (0, 4, 8, 16, 32, 38, 64)
	plot "$dir/curve.dat" using 1:2 with linespoints pointtype 7 title "KRSI links (KRSI_MAX_PROGS: 64)"$tramp
	EOF
}

start=$(date +%s)
bench baseline "lsm=capability,bpf krsi.tests=baseline"
# The appliance's kernel with no LSM but capabilities: what KRSI and the
# BPF LSM cost together when no program is attached.
bench capability "lsm=capability krsi.tests=baseline"
sed -i 's/^\(bench [a-z]*\) baseline /\1 capability /' "$dir/capability.lines"
# krsi_bench runs longer than the runner's default 300 s a test on s390x.
bench krsi "krsi.tests=bench krsi.test_timeout=1500"
grep '^curve ' "$dir/krsi.results" >"$dir/curve.lines"
# The boot policies attached by /init, and the audit reader streaming to
# the host, as run-qemu.sh --log has it: boot time, exec with the reader.
# (s390x has no port to stream on: its reader logs in the guest alone.)
rm -f "$dir/boot.log"
stream="--log $dir/boot.log"
[ "$arch" = s390x ] && stream=
# shellcheck disable=SC2086 # $stream is two words or none
bench boot "krsi.tests=boottime krsi.policies=$policies" $stream
boots=$(( $(date +%s) - start ))

# No-change rebuild: everything is built, so this is make's own cost.
t0=$(date +%s%N)
make -s ARCH="$arch" all >/dev/null 2>&1
rebuild_ms=$(( ($(date +%s%N) - t0) / 1000000 ))

{
	echo "KRSI benchmark, $arch guest, $(date -u +%Y-%m-%d), $(nproc) CPUs, QEMU TCG"
	echo
	echo "ns per call: median of 15 rounds [min..max]; x baseline: against the"
	echo "kernel booted without KRSI (another boot); x trampoline: against the"
	echo "trampoline with as many programs (same boot)"
	echo
	cat "$dir/baseline.lines" "$dir/krsi.lines" | awk '
	$1 == "bench" && $2 != "boot" && $2 != "clocksource" {
		key = $2 " " $3
		med[key] = $4; lo[key] = $5; hi[key] = $6
		if (!(($2) in seen)) { seen[$2] = 1; calls[++ncalls] = $2 }
	}
	END {
		split("baseline krsi-empty krsi-1 krsi-8 krsi-link-1 krsi-link-8 trampoline-1 trampoline-8", configs, " ")
		printf("%-5s %-13s %10s %17s %11s %13s\n", "call", "config", "ns/call",
		       "[min..max]", "x baseline", "x trampoline")
		for (c = 1; c <= ncalls; c++) {
			call = calls[c]
			base = med[call " baseline"]
			for (k = 1; k <= 8; k++) {
				key = call " " configs[k]
				if (!(key in med)) continue
				vs = base ? sprintf("%.3f", med[key] / base) : "-"
				tr = "-"
				n = configs[k]
				sub(/^krsi-(link-)?/, "", n)
				# "in" first: reading med[] would make a row arm64 has not
				if (configs[k] ~ /^krsi-(link-)?[18]$/ &&
				    (call " trampoline-" n) in med)
					tr = sprintf("%.3f", med[key] / med[call " trampoline-" n])
				printf("%-5s %-13s %10d %17s %11s %13s\n", call, configs[k],
				       med[key], "[" lo[key] ".." hi[key] "]", vs, tr)
			}
		}
	}'
	echo
	echo "the appliance kernel, KRSI and the BPF LSM active, no program attached,"
	echo "against the same kernel booted with lsm=capability (another boot):"
	cat "$dir/capability.lines" "$dir/krsi.lines" | awk '
	$1 == "bench" && ($3 == "capability" || $3 == "krsi-empty") {
		med[$2 " " $3] = $4
		if ($3 == "capability") calls[++n] = $2
	}
	END {
		for (c = 1; c <= n; c++) {
			cap = med[calls[c] " capability"]; k = med[calls[c] " krsi-empty"]
			printf("%-5s %-13s %10d  capability %d  x %s\n", calls[c],
			       "krsi-empty", k, cap, cap ? sprintf("%.3f", k / cap) : "-")
		}
	}'
	echo
	echo "KRSI links against programs attached by BPF_PROG_ATTACH (same boot):"
	awk '
	$1 == "bench" && $3 ~ /^krsi-(link-)?[18]$/ {
		med[$2 " " $3] = $4
		if ($3 == "krsi-link-1") calls[++n] = $2
	}
	END {
		for (c = 1; c <= n; c++)
			for (k = 1; k <= 8; k += 7) {
				link = med[calls[c] " krsi-link-" k]
				attach = med[calls[c] " krsi-" k]
				printf("%-5s %-13s %10d  x krsi-%d %s\n", calls[c],
				       "krsi-link-" k, link, k,
				       attach ? sprintf("%.3f", link / attach) : "-")
			}
	}' "$dir/krsi.lines"
	echo
	echo "the boot policies attached (krsi attach of boot.conf, same boot),"
	echo "against KRSI with no program:"
	awk '
	$1 == "bench" && ($3 == "krsi-empty" || $3 == "policies") {
		med[$2 " " $3] = $4; lo[$2 " " $3] = $5; hi[$2 " " $3] = $6
		if ($3 == "policies") calls[++n] = $2
	}
	END {
		for (c = 1; c <= n; c++) {
			key = calls[c] " policies"; base = med[calls[c] " krsi-empty"]
			printf("%-5s %-13s %10d %17s %11s\n", calls[c], "policies", med[key],
			       "[" lo[key] ".." hi[key] "]",
			       base ? sprintf("%.3f", med[key] / base) : "-")
		}
	}' "$dir/krsi.lines"
	echo
	echo "vfork+exec with the boot policies attached by /init and the audit"
	if [ -n "$stream" ]; then
		echo "reader logging every record and streaming it to the host (another"
	else
		echo "reader logging every record, in the guest alone (another"
	fi
	echo "boot), against the same calls under the policies with no reader:"
	cat "$dir/krsi.lines" "$dir/boot.lines" | awk '
	$1 == "bench" && $2 == "exec" && $3 == "policies" { base = $4 }
	$1 == "bench" && $2 == "exec" && $3 == "reader" { med = $4; lo = $5; hi = $6 }
	$1 == "bench" && $2 == "reader-records" { found = $3; want = $4 }
	$1 == "bench" && $2 == "reader-lost" { lost = $3 }
	END {
		printf("%-5s %-13s %10d %17s %11s\n", "exec", "reader", med,
		       "[" lo ".." hi "]", base ? sprintf("%.3f", med / base) : "-")
		printf("      %.0f execs/s of guest time; %d of %d records logged, %d lost or refused\n",
		       med ? 1e9 / med : 0, found, want, lost)
	}'
	echo
	policy_table
	echo
	curve_table
	echo
	echo "guest clocksource: $(sed -n 's/^bench clocksource //p' "$dir/krsi.lines")"
	printf '%-19s %s bytes\n' "$kname:" "$(stat -c %s "$images/$kname")"
	echo "initramfs.cpio.gz:  $(stat -c %s "$images/initramfs.cpio.gz") bytes"
	echo "boot policies attached at: $(sed -n 's/^bench boot policies-attached //p' "$dir/boot.lines")s of guest uptime"
	echo "no-change rebuild (make all): ${rebuild_ms} ms"
	# build/kernel.times: one line per kernel stage run (make), in seconds.
	# The first is the build from scratch of this build/ directory (tree
	# extracted, kernel compiled with what ccache had).
	if [ -s "$build/kernel.times" ]; then
		echo "kernel stage, first build of $build/: $(head -n 1 "$build/kernel.times") s;" \
		     "last rebuild: $(tail -n 1 "$build/kernel.times") s"
	fi
	echo "benchmark boots: ${boots} s wall"
} | tee "$out"
curve_plot || echo "run-bench: gnuplot failed: no $dir/curve.svg" >&2

# The documents that show these figures get them from here, never typed
# (tools/build/figures.sh): x86_64's whole table in docs/benchmarks.md,
# another architecture's in docs/architectures.md; each architecture's
# curve in docs/benchmarks.md, and x86_64's in README too.
command="make bench"
doc=docs/benchmarks.md
[ "$arch" = x86_64 ] || { command="make ARCH=$arch bench"; doc=docs/architectures.md; }
tools/build/figures.sh "$doc" "bench-$arch" "$command" <"$out" || exit 1
curve_table | tools/build/figures.sh docs/benchmarks.md "bench-curve-$arch" "$command" || exit 1
if [ "$arch" = x86_64 ]; then
	curve_table | tools/build/figures.sh README.md bench-curve-x86_64 "$command" || exit 1
fi
cp "$dir/curve.svg" "docs/bench-curve-$arch.svg" 2>/dev/null || true

# No kernel report on a console, and every configuration has a result:
# 4 calls, baseline, capability, 7 configurations (5 without a
# trampoline) and the policies, and the reader's boot its two; the
# reader every record; each boot policy alone and none have open and
# exec; the curve has every N of both kinds (KRSI's
# alone off x86_64) and each kind's first attach past its maximum
# refused.
configs=7 curve=19
[ "$arch" = x86_64 ] || configs=5 curve=10
[ "$(grep -c '^policy ' "$dir/krsi.results")" -eq \
	$((2 * ($(echo "$policies" | tr , '\n' | wc -l) + 1))) ] &&
[ "$(grep -c '^curve ' "$dir/curve.lines")" -eq $curve ] &&
	grep -q '^curve krsi-refused 65 E2BIG$' "$dir/curve.lines" &&
! cat "$dir"/*.reports | grep -q . &&
[ "$(cat "$dir/baseline.lines" "$dir/capability.lines" "$dir/krsi.lines" \
	"$dir/boot.lines" | grep -c '^bench [a-z]* [a-z0-9-]* [0-9]')" -eq $((4 * (configs + 3) + 2)) ] &&
	grep -q '^bench reader-lost 0$' "$dir/boot.lines" &&
	awk '$2 == "reader-records" && $3 == $4 { ok = 1 } END { exit !ok }' "$dir/boot.lines"
