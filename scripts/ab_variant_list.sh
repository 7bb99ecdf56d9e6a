# Sourced by the A/B scripts (ab_flags.sh, ab_env.sh): read_variant_list FILE fills the array `variants`
# with "--variant NAME" for each line of FILE (blanks and '#' comments skipped).
read_variant_list() {
  variants=()
  local v
  while read -r v; do
    v=${v%%#*}; v=${v// /}
    [ -n "$v" ] && variants+=(--variant "$v")
  done <"$1"
}
