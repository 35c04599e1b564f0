#!/bin/sh
# Fail, naming each one, if an option of the config fragment does not have
# its value in the final .config. Kconfig drops options whose dependencies
# are not met without a word; this is where that is caught.
#
# usage: check-config.sh FRAGMENT DOTCONFIG
set -eu

fragment=$1
dotconfig=$2
missing=0

while IFS= read -r line; do
	case $line in
	CONFIG_*=*)
		want=$line
		name=${line%%=*}
		;;
	"# CONFIG_"*" is not set")
		name=${line#\# }
		name=${name%% *}
		want=$line
		;;
	*)
		continue
		;;
	esac
	have=$(grep -e "^$name=" -e "^# $name is not set" "$dotconfig" || true)
	[ "$have" = "$want" ] && continue
	# An option that is off may also be missing from .config altogether.
	case $want in
	"#"*) [ -z "$have" ] && continue ;;
	esac
	echo "check-config: $name: wanted '$want', got '${have:-not set}'" >&2
	missing=$((missing + 1))
done <"$fragment"

if [ "$missing" -ne 0 ]; then
	echo "check-config: $missing option(s) of $fragment dropped from $dotconfig" >&2
	exit 1
fi
