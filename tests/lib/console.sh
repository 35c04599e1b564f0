# Sourced by the scripts that type at the appliance's own prompts
# (tests/sessions/exhaust.sh, tests/sessions/shell.sh): boot it with
# ./run-qemu.sh on a FIFO, wait for text on its serial console, type lines.
#
#   console_boot SESSION CONSOLE TIMEOUT [RUN-QEMU-OPTION]...
#   step WHAT TEXT LINE [WAIT]     ...
#   console_end; status=$?
#
# SESSION names the "not ok" lines; CONSOLE is the file the console goes
# to; TIMEOUT bounds both the boot and each wait.

# console_boot SESSION CONSOLE TIMEOUT [RUN-QEMU-OPTION]...: boot in the
# background, its input a FIFO held open on descriptor 3 between lines.
console_boot() {
	session=$1 console=$2 timeout=$3
	shift 3
	input=$console.input
	rm -f "$input" && mkfifo "$input" || return 1
	: >"$console"
	./run-qemu.sh --timeout "$timeout" "$@" <"$input" >"$console" 2>&1 &
	qemu=$!
	exec 3>"$input"
}

# await TEXT: wait until the console has shown TEXT; fails when QEMU has
# ended, or after TIMEOUT seconds.
await() {
	waited=0
	until tr -d '\r' <"$console" | grep -q -F -- "$1"; do
		kill -0 "$qemu" 2>/dev/null && [ "$waited" -lt "$timeout" ] || return 1
		sleep 1
		waited=$((waited + 1))
	done
}

# type_line LINE, as typed on the serial console.
type_line() {
	printf '%s\r' "$1" >&3
}

# step WHAT TEXT LINE [WAIT]: once the console shows TEXT (and WAIT more
# seconds), type LINE; else say that WHAT did not happen.
step() {
	if await "$2"; then
		sleep "${4:-0}"
		type_line "$3"
	else
		echo "not ok $session: $1 (see $console)"
		return 1
	fi
}

# console_end: close QEMU's input, wait for it to end; its exit status.
console_end() {
	exec 3>&-
	wait "$qemu"
	ended=$?
	rm -f "$input"
	return "$ended"
}
