#!/usr/bin/env bash
# Several builds at once on a GPU machine, each in its own copy of the working
# tree with its own patches, so that an A/B/C... costs one build's wall time
# (column_sum.cu alone takes ~80 s of one core; ab_builds.sh builds in turns).
#
#   bash benchmarks/experiments/variant_builds.sh A B:x.patch C:x.patch,y.patch
#   (cd $VARIANTS/B && PYTHONPATH=. python benchmarks/experiments/routing_variants.py ...)
#
# Each NAME[:PATCH,...] copies the tree (without build outputs) to
# $VARIANTS/NAME, applies its patches in order (paths from the repository
# root) and builds the extension in place there for TORCH_CUDA_ARCH_LIST (9.0
# unless set); MAX_JOBS (16 unless set) is shared out between the builds. A
# failed patch or build prints its log's tail and fails the script.
set -u
export TORCH_CUDA_ARCH_LIST="${TORCH_CUDA_ARCH_LIST:-9.0}"
VARIANTS="${VARIANTS:-/tmp/variants}" jobs="${MAX_JOBS:-16}"
mkdir -p "$VARIANTS"
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
start=$SECONDS
jobs_each=$(((jobs + $# - 1) / $#))

build_variant() {
  local name=${1%%:*} patches="" dir patch
  [[ $1 == *:* ]] && patches=${1#*:}
  dir="$VARIANTS/$name"
  rm -rf "$dir" && mkdir -p "$dir"
  tar --exclude=./build --exclude=./.git --exclude=./.venv --exclude='*.so' -cf - . | tar -xf - -C "$dir"
  cd "$dir" || return 1
  for patch in ${patches//,/ }; do
    git apply "$patch" > build.log 2>&1 || { echo "$name: $patch does not apply"; return 1; }
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
