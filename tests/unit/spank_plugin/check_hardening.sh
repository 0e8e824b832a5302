#!/bin/sh
# The built SPANK plugin is hardened as Debian builds plugins: full RELRO
# (a GNU_RELRO segment and BIND_NOW) and the stack protector
# (__stack_chk_fail referenced), read from the .so; _FORTIFY_SOURCE=2 with
# optimisation, read from the target's compile options (the plugin's calls
# have sizes the compiler proves, so no __*_chk call shows it in the .so).
# Usage: check_hardening.sh PATH/slipway.so "COMPILE OPTIONS"
set -u
plugin=$1
options=$2
status=0
fail() {
  echo "$plugin: $1; build it with spank_plugin/CMakeLists.txt's SLIPWAY_SPANK_HARDENING" >&2
  status=1
}
[ -f "$plugin" ] || { echo "$plugin: no such file (build the slipway_spank target)" >&2; exit 1; }
program_headers=$(readelf -lW "$plugin") || exit 1
dynamic=$(readelf -dW "$plugin") || exit 1
symbols=$(readelf --dyn-syms -W "$plugin") || exit 1
echo "$program_headers" | grep -q 'GNU_RELRO' || fail "no GNU_RELRO segment (link with -z relro)"
echo "$dynamic" | grep -Eq 'BIND_NOW|Flags:.* NOW' || fail "not BIND_NOW (link with -z now: full RELRO)"
echo "$symbols" | grep -q ' UND __stack_chk_fail' || fail "__stack_chk_fail is not referenced (-fstack-protector-strong)"
case " $options " in
  *" -D_FORTIFY_SOURCE=2 "*) ;;
  *) fail "compiled without -D_FORTIFY_SOURCE=2 (options: $options)" ;;
esac
case " $options " in
  *" -O1 "* | *" -O2 "* | *" -O3 "* | *" -Os "*) ;;
  *) fail "compiled without optimisation, which _FORTIFY_SOURCE needs (options: $options)" ;;
esac
[ "$status" -eq 0 ] && echo "$plugin: full RELRO, stack protector, _FORTIFY_SOURCE=2 with optimisation"
exit "$status"
