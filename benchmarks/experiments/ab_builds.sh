#!/usr/bin/env bash
# Builds, patches and benchmark runs on a GPU machine, in the order given, so that
# an A/B alternates two builds on one card in one go (benchmarks/NOTES.md: every
# A/B since session 30 ran this way).
#
#   bash benchmarks/experiments/ab_builds.sh build save:A patch:x.patch build save:B \
#       run:a1:--scenarios+graph+--sizes+28 use:B run:b1:--scenarios+graph+--sizes+28 tar
#   python -m benchmarks.compare runs/a1 runs/b1    # here, after untarring $OUT/runs.tgz
#
# Steps:
#   build          the extension in place for TORCH_CUDA_ARCH_LIST (9.0 unless set)
#   save:N, use:N  keep the built extension as N / put N back (under $BUILDS)
#   patch:F        git apply F (a path from the repository root); unpatch:F reverts it
#   env:K=V        export K=V for the steps after it
#   tests          the GPU suite without the sanitizer cases; sanitizer: those cases
#   pytest:ARGS    pytest with ARGS ('+' for spaces, '~' for a space inside one
#                  argument: pytest:tests+-k+a~or~b)
#   run:N:ARGS     python -m benchmarks ARGS ('+' for spaces, '~' for a space inside
#                  one argument); results in $RUNS/N/, its log in $RUNS/N.log
#   tar            $RUNS as $OUT/runs.tgz
#
# A working tree copied onto the machine keeps its own modification times, which
# can be older than objects built there from other sources, so ninja would rebuild
# nothing: `build` first touches every source whose content changed since its last
# build on this machine.
set -u
export PYTHONUNBUFFERED=1 TORCH_REDUCE_REQUIRE_CUDA=1
export TORCH_CUDA_ARCH_LIST="${TORCH_CUDA_ARCH_LIST:-9.0}" MAX_JOBS="${MAX_JOBS:-16}"
OUT="${OUT:-/tmp/ab_out}" BUILDS="${BUILDS:-/tmp/ab_builds}" RUNS="${RUNS:-/tmp/runs}"
HASHES="${BUILDS}/.source_hashes"
mkdir -p "$OUT" "$BUILDS" "$RUNS" "$HASHES"
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
start=$SECONDS

touch_changed_sources() {
  local file digest record
  while IFS= read -r file; do
    digest=$(md5sum < "$file")
    record="$HASHES/${file//\//_}"
    if [ "$(cat "$record" 2>/dev/null)" != "$digest" ]; then
      touch "$file"
      echo "$digest" > "$record"
    fi
  done < <(find csrc -name '*.cu' -o -name '*.cuh' -o -name '*.h' -o -name '*.cpp')
}

# argv = a step's ARGS: '+' between arguments, '~' for a space inside one.
split_step_args() {
  read -ra argv <<< "${1//+/ }"
  argv=("${argv[@]//\~/ }")
}

for step in "$@"; do
  echo "== [$((SECONDS - start)) s] $step"
  case "$step" in
    build)
      touch_changed_sources
      python setup.py -q build_ext --inplace > "$OUT/build.log" 2>&1 ||
        { tail -40 "$OUT/build.log"; exit 1; } ;;
    save:*) mkdir -p "$BUILDS/${step#save:}" && cp torch_reduce/_C*.so "$BUILDS/${step#save:}/" ;;
    use:*) cp "$BUILDS/${step#use:}"/_C*.so torch_reduce/ ;;
    patch:*) git apply "${step#patch:}" || exit 1 ;;
    unpatch:*) git apply -R "${step#unpatch:}" || exit 1 ;;
    env:*) export "${step#env:}" ;;
    tests) python -m pytest tests -q -m "not sanitizer" -p no:cacheprovider 2>&1 | tail -15 ;;
    sanitizer) python -m pytest tests -q -m sanitizer -p no:cacheprovider 2>&1 | tail -15 ;;
    pytest:*)
      split_step_args "${step#pytest:}"
      python -m pytest -q -p no:cacheprovider "${argv[@]}" 2>&1 | tail -15 ;;
    run:*)
      rest=${step#run:}; name=${rest%%:*}; split_step_args "${rest#*:}"
      python -m benchmarks "${argv[@]}" --no-plot --out "$RUNS/$name" > "$RUNS/$name.log" 2>&1 ||
        tail -20 "$RUNS/$name.log" ;;
    tar) tar -czf "$OUT/runs.tgz" -C "$(dirname "$RUNS")" "$(basename "$RUNS")" ;;
    *) echo "unknown step: $step"; exit 1 ;;
  esac
done
echo "== [$((SECONDS - start)) s] done"
