#!/usr/bin/env bash
# Several builds at once on a GPU machine, each in its own copy of the working
# tree with its own patches, so that an A/B/C... costs one build's wall time
# (column_sum.cu alone takes ~80 s of one core; ab_builds.sh builds in turns).
#
#   bash benchmarks/experiments/variant_builds.sh A B:x.patch C:x.patch,y.patch
#   (cd $VARIANTS/B && PYTHONPATH=. python benchmarks/experiments/routing_variants.py ...)
#
# Each NAME[:PATCH,...] (NAME of letters, digits, _ and -, each once) copies
# the repository's tree (without build outputs) to $VARIANTS/NAME, applies its
# patches in order (paths from the repository root) and builds the extension
# in place there for TORCH_CUDA_ARCH_LIST (9.0 unless set); MAX_JOBS (16
# unless set) is shared out between the builds. A failed copy, patch or build
# prints its log's tail and fails the script.
set -u -o pipefail
if [ $# -eq 0 ]; then
  echo "usage: $0 NAME[:PATCH,...] ..." >&2
  exit 2
fi
cd "$(dirname "$0")/../.." || exit 1
export TORCH_CUDA_ARCH_LIST="${TORCH_CUDA_ARCH_LIST:-9.0}"
VARIANTS="${VARIANTS:-/tmp/variants}" jobs="${MAX_JOBS:-16}"
declare -A seen=()
for variant in "$@"; do
  name=${variant%%:*}
  if [[ ! $name =~ ^[A-Za-z0-9_-]+$ || -n ${seen[$name]:-} ]]; then
    echo "bad or repeated variant name: '$name'" >&2
    exit 2
  fi
  seen[$name]=1
done
mkdir -p "$VARIANTS"
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
start=$SECONDS
jobs_each=$(((jobs + $# - 1) / $#))

build_variant() {
  local name=${1%%:*} patches="" dir patch
  [[ $1 == *:* ]] && patches=${1#*:}
  dir="$VARIANTS/$name"
  rm -rf "$dir" && mkdir -p "$dir"
  tar --exclude=./build --exclude=./.git --exclude=./.venv --exclude='*.so' -cf - . |
    tar -xf - -C "$dir" || { echo "$name: copy failed"; return 1; }
  cd "$dir" || return 1
  : > build.log
  for patch in ${patches//,/ }; do
    git apply "$patch" >> build.log 2>&1 ||
      { echo "$name: $patch does not apply"; tail -20 build.log; return 1; }
  done
  MAX_JOBS=$jobs_each python setup.py -q build_ext --inplace >> build.log 2>&1 ||
    { echo "$name: build failed"; tail -40 build.log; return 1; }
  echo "== [$((SECONDS - start)) s] $name built ($patches)"
}

pids=()
for variant in "$@"; do
  build_variant "$variant" &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
echo "== [$((SECONDS - start)) s] done"
exit $status
