# Sourced by scripts/test-deps.d/*.sh: `install_venv DIR PKG==VER …` creates a venv under
# .test-deps/ with exactly these pinned PyPI packages. Idempotent: a venv whose stamp
# (DIR/.installed) names the same pins is left alone; otherwise it is made anew.
install_venv() {
  local dir="$1"; shift
  local stamp="$dir/.installed"
  local want="$*"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$dir/bin/python" ]; then
    return 0
  fi
  echo "creating $dir with: $want"
  rm -rf "$dir"
  mkdir -p "$(dirname "$dir")"
  python3 -m venv "$dir"
  "$dir/bin/python" -m pip install --quiet --disable-pip-version-check --no-input "$@"
  echo "$want" > "$stamp"
}
