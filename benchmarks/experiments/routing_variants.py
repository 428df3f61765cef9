"""Graph time of off_boundary_columns.py's cases under several host-side routing
variants of one build, each variant a peer beside torch.sum and Inductor.

A launch rule that changes only host code (which bands, how many splits, which
kernel) needs no second build to be compared: an experiment patch reads the
letters of an environment variable at each launch (shorter-finish-switch.patch
and wide-interleaved-switch.patch read TORCH_REDUCE_ROUTING; session 63's
routing-variants.patch, in git history, held three rules), and each variant's
calls set it before calling sum_v7, so
that its CUDA graph captures that variant's launches. The variants then replay
in turns with the peers on one card in one process, each checked against a
float64 (or exact integer) sum first. --cases picks the cases (NOTES session 63
has the runs):

    TORCH_REDUCE_NO_CLUSTERS=1 PYTHONPATH=. python \
        benchmarks/experiments/routing_variants.py /tmp/rv.json \
        --cases without_clusters --variants A,c

(TORCH_REDUCE_NO_CLUSTERS is read once a process, so it stays outside the
variants.) --routes times nothing: it prints the kernels (name, grid, block)
that each variant launches for each case, to check a launch rule's model
before its times are read.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import torch

import torch_reduce  # noqa: F401  (registers torch.ops.reduce_opt)
from benchmarks.experiments.off_boundary_columns import CASES, full, time_cases
from benchmarks.experiments.two_launch_timeline import profiled_kernels, short_name
from benchmarks.inputs import dtype_name, random_data


def channels_last(shape: tuple[int, ...]) -> Callable[[torch.Tensor], torch.Tensor]:
    return lambda x: x.contiguous(memory_format=torch.channels_last)


def whole(shape: tuple[int, ...], dtype: torch.dtype, dims: tuple[int, ...] = (0,)) -> tuple:
    """off_boundary_columns' case of a sum over dims of a whole stored tensor,
    labelled by its shape."""
    return ("x".join(map(str, shape)), shape, dtype, full, dims)


# Sums whose launch on a GPU without clusters (TORCH_REDUCE_NO_CLUSTERS=1 on an
# H200 stands in for one) session 62's model of the shorter-finish rule finds
# reshaped, beside the off-boundary ones it was measured on; off_boundary_columns'
# (label, stored shape, dtype, view of the stored tensor, dims).
WITHOUT_CLUSTERS_CASES = [
    whole((2048, 50256), torch.bfloat16),
    whole((1024, 1024), torch.int32),
    ("32x256x56x56 channels_last", (32, 256, 56, 56), torch.bfloat16, channels_last, (2, 3)),
    whole((2048, 50257), torch.bfloat16),
    whole((16384, 1001), torch.float32),
    whole((16384, 4095), torch.float16),
]

# Small and mid column sums of 33-1001 columns whose rows start off the vector
# boundaries, the largest gap to Inductor on an H200 (0.67-0.92x, NOTES session
# 63), with an aligned twin (3001x100): wide-interleaved-switch.patch and
# small-off-boundary-switch.patch.
NARROW_OFF_BOUNDARY_CASES = [
    whole((3001, 66), torch.float32),
    whole((1001, 33), torch.float32),
    whole((3001, 100), torch.float32),
    whole((20001, 66), torch.float32),
    whole((64, 3001, 66), torch.float32, (1,)),
    whole((2000, 66), torch.bfloat16),
    whole((4001, 127), torch.float16),
    whole((2000, 1001), torch.bfloat16),
    whole((2001, 33), torch.int16),
]
# Column sums that a column a thread reads through L2 (its rows too many for
# small_sum_bands' rounds as kUnroll rows) but in clusters where those rounds
# are counted in its loads in flight: column-finish-small-bands-switch.patch.
COLUMN_A_THREAD_CASES = [
    whole((4001, 127), torch.float16),
    whole((8001, 127), torch.float16),
    whole((4001, 255), torch.bfloat16),
    whole((64, 1001, 127), torch.float16, (1,)),
    whole((8001, 33), torch.int16),
    whole((6001, 33), torch.float32),
    whole((12001, 67), torch.float32),
    whole((3001, 67), torch.int32),
]
# Column sums that a flat column a thread would read in small_sum_bands' clusters
# but that off-boundary vectors read now: column-a-thread-clusters-switch.patch.
SMALL_CLUSTER_CASES = [
    whole((20001, 66), torch.float32),
    whole((12001, 67), torch.float32),
    whole((2048, 1001), torch.float32),
    whole((1024, 1001), torch.float32),
    whole((3001, 1001), torch.float32),
    whole((4096, 255), torch.float32),
    whole((8192, 127), torch.float32),
    whole((16384, 63), torch.float32),
    whole((8192, 127), torch.float16),
    whole((2048, 1001), torch.bfloat16),
]
# Column sums of int32, 8-byte and 1-byte types that small_sum_bands' rules for
# a flat column a thread moved to a column a thread in clusters in session 67
# (they had been kept to fp32 and 2-byte types).
OTHER_TYPE_CASES = [
    whole((8001, 33), torch.int32),
    whole((2048, 1001), torch.int32),
    whole((2001, 33), torch.int64),
    whole((2001, 33), torch.float64),
    whole((1001, 1001), torch.float64),
    whole((2001, 33), torch.int8),
    whole((2048, 1001), torch.int8),
    whole((4001, 127), torch.int8),
]
# Larger column sums of those types, which their fp32 twins' routes suggested
# might move too (session 66's fp32 16384x63 lost 0.26 us): the int32, int64 and
# uint8 ones moved into clusters in session 67, the int8 and bool ones split
# through L2 (min-rows-per-thread-switch.patch) until session 68's 4-lane bands
# took them into clusters too.
OTHER_TYPE_LARGER_CASES = [
    whole((20001, 66), torch.int32),
    whole((16384, 63), torch.int32),
    whole((12001, 67), torch.int64),
    whole((1024, 1001), torch.int64),
    whole((3001, 1001), torch.float64),
    whole((16384, 63), torch.int8),
    whole((20001, 66), torch.bool),
    whole((3001, 1001), torch.uint8),
]
# Column sums that a column a thread read through L2 in more splits than its
# bands' clusters hold until session 68 (kColumnAThreadL2RowsPerThread's cases,
# then 4-lane bands in clusters: column-a-thread-min-lanes-switch.patch), with
# 8-byte and general-index ones beside them, and 16-bit and int8 ones past the
# clusters' rows (column-a-thread-narrow-l2-bands-switch.patch).
COLUMN_A_THREAD_L2_CASES = [
    whole((8193, 33), torch.int8),
    whole((16384, 63), torch.int8),
    whole((20001, 33), torch.int16),
    whole((20001, 33), torch.bfloat16),
    whole((27649, 33), torch.float16),
    whole((100001, 33), torch.float16),
    whole((50001, 33), torch.bfloat16),
    whole((70001, 33), torch.int8),
    whole((20001, 66), torch.bool),
    whole((20001, 33), torch.float64),
    whole((50001, 33), torch.int64),
    whole((8, 20001, 33), torch.bfloat16, (1,)),
]
# Column sums of 1- and 2-byte types that small_sum_bands' second limit (two
# blocks an SM, 4 rounds) took in wider bands, or sent through L2, until the
# 4-lane floor of session 68 moved them, untimed, to twice the blocks (per the
# model of its rules; helper-45's review): column-a-thread-min-lanes-switch.patch
# on 5ad9c60, letters A and e/f, times both.
SECOND_LIMIT_CASES = [
    whole((10001, 66), torch.bfloat16),
    whole((16001, 66), torch.bfloat16),
    whole((9001, 100), torch.float16),
    whole((12001, 127), torch.float16),
    whole((8001, 255), torch.int8),
    whole((12001, 255), torch.int8),
    whole((20001, 33), torch.int8),
    whole((10001, 66), torch.int8),
]
# Long column sums of 33-1001 columns past the rows of small_sum_bands' clusters,
# which a flat column a thread reads through L2 in its widest bands, beside
# column_a_thread_l2's 33-column ones:
# column-a-thread-narrow-l2-bands-switch.patch.
COLUMN_A_THREAD_LONG_CASES = [
    whole((100001, 127), torch.float16),
    whole((50001, 255), torch.bfloat16),
    whole((70001, 1001), torch.int8),
    whole((200001, 66), torch.float16),
    whole((300001, 33), torch.int16),
    whole((100001, 67), torch.float32),
    whole((1000001, 33), torch.float16),
    whole((1000001, 33), torch.int8),
]
# Long column sums that a flat column a thread reads through L2 in its widest
# bands (32 column lanes), of 35-97 columns, whose last band is 3-100% full:
# where narrower bands stop paying (column-a-thread-narrow-l2-bands-switch.patch).
NARROW_L2_WIDTH_CASES = [
    whole((100001, columns), torch.float16) for columns in (35, 37, 41, 45, 51, 57, 65, 97)
] + [whole((70001, columns), torch.int8) for columns in (41, 51)]
# Column sums of 8-byte types that a column a thread reads in clusters at the
# second limit of small_sum_bands (two blocks an SM), or at one block an SM with
# twice the rounds first, as 2- and 4-byte ones do since session 69
# (column-a-thread-second-limit-eight-byte-switch.patch, letter E).
EIGHT_BYTE_SECOND_LIMIT_CASES = [
    whole((rows, 33), dtype) for dtype in (torch.int64, torch.float64) for rows in (8193, 12001)
]
# int32 sums that small_sum_bands' middle limit (a block an SM at 4 rounds) might
# move (fp32 was timed), with an fp32 twin; and 1-byte sums through L2 whose widest
# bands leave fewer than a third of their lanes idle:
# column-a-thread-int32-and-one-byte-l2-switch.patch (NOTES session 69, call 5).
INT32_AND_ONE_BYTE_CASES = [
    whole((12001, 67), torch.int32),
    whole((9001, 100), torch.int32),
    whole((9001, 100), torch.float32),
] + [whole((70001, columns), torch.int8) for columns in (51, 65, 97, 127)]
# Column sums of 33-128 columns whose rows lie back to back off the vector
# boundaries, of types whose accumulators interleaved_column_sum.cu holds: small
# ones in clusters and long ones through L2 (0.70-0.89x Inductor on an H200),
# which wide-interleaved-finish-switch.patch reads as one run of vectors.
WIDE_INTERLEAVED_CASES = [
    whole((1001, 33), torch.float32),
    whole((3001, 66), torch.float32),
    whole((20001, 66), torch.float32),
    whole((64, 3001, 66), torch.float32, (1,)),
    whole((2000, 66), torch.bfloat16),
    whole((4001, 127), torch.float16),
    whole((12001, 127), torch.float16),
    whole((100001, 33), torch.float16),
    whole((50001, 33), torch.bfloat16),
    whole((100001, 65), torch.float16),
    whole((100001, 127), torch.float16),
    whole((100001, 67), torch.float32),
    whole((20001, 66), torch.int32),
    whole((20001, 33), torch.float64),
    whole((1000001, 33), torch.float16),
]
# Long column sums of 33-127 back-to-back columns off the vector boundaries:
# where wide_interleaved's run of vectors starts to pay, by rows.
LONG_INTERLEAVED_CASES = [
    whole((rows, 33), torch.float16) for rows in (200001, 400001, 1000001)
] + [
    whole((500001, 33), torch.float32),
    whole((300001, 66), torch.float32),
    whole((300001, 65), torch.bfloat16),
    whole((300001, 127), torch.float16),
    whole((300001, 66), torch.int32),
    whole((300001, 33), torch.float64),
    whole((1000001, 65), torch.float16),
]


def element_in(shape: tuple[int, ...], dtype: torch.dtype, dims: tuple[int, ...] = (0,)) -> tuple:
    """off_boundary_columns' case of a sum over dims of a tensor of `shape` that
    starts one element into its storage (off the vector boundary)."""
    numel = math.prod(shape)
    return (
        "x".join(map(str, shape)) + ", 1 element in",
        (numel + 1,),
        dtype,
        lambda stored: lambda x: x[1:].view(shape),
        dims,
    )


# Long column sums of 33-64 back-to-back columns around interleaves_wide_columns'
# rule (floating types, two rounds of loads a thread of a wave), with
# wide-interleaved-off-switch.patch's letter n for the band kernels.
WIDE_INTERLEAVED_RULE_CASES = [
    element_in((200001, 64), torch.float32),
    whole((300001, 47), torch.float32),
    whole((150001, 33), torch.float32),
    element_in((300001, 64), torch.float16),
    whole((270001, 33), torch.float16),
    whole((200001, 47), torch.bfloat16),
    whole((400001, 33), torch.bfloat16),
    whole((100001, 47), torch.float64),
    element_in((150001, 64), torch.float64),
    whole((64, 20001, 33), torch.float32, (1,)),
    # Up to 32 columns, where the finish now keeps 16 partials in flight a lane.
    whole((10**6, 3), torch.float32),
    whole((8, 2**20, 3), torch.bfloat16, (1,)),
    whole((200001, 31), torch.float16),
]

# Long sums of 33-64 interleaved 4- and 8-byte columns, whose splits the held
# partials cap below a wave, with 16-bit controls:
# wide-interleaved-full-wave-switch.patch.
WIDE_INTERLEAVED_PARTIALS_CASES = [
    whole((150001, 33), torch.float32),
    whole((300001, 41), torch.float32),
    whole((300001, 47), torch.float32),
    element_in((200001, 64), torch.float32),
    whole((300001, 33), torch.float64),
    whole((100001, 41), torch.float64),
    whole((100001, 47), torch.float64),
    element_in((150001, 64), torch.float64),
    whole((270001, 33), torch.float16),
    whole((200001, 47), torch.bfloat16),
]
# 1-byte column sums through L2 around be3fec9's rule (4-lane bands where the
# widest bands are 3 or fewer): one-byte-l2-bounds-switch.patch.
ONE_BYTE_L2_BOUND_CASES = [
    whole((70001, columns), torch.int8) for columns in (24, 31, 51, 65, 80, 95)
] + [whole((70001, 31), torch.uint8)]
# Mid-size sums of 33-64 interleaved float columns, which trail Inductor in
# the band kernels, with long controls: interleaved-mid-switch.patch.
INTERLEAVED_MID_CASES = [
    whole((100001, 33), torch.float16),
    whole((50001, 33), torch.bfloat16),
    whole((200001, 33), torch.float16),
    whole((30001, 64), torch.float16),
    whole((20001, 47), torch.bfloat16),
    whole((20001, 33), torch.float32),
    whole((100001, 41), torch.float32),
    whole((20001, 33), torch.float64),
    whole((100001, 41), torch.float64),
    whole((300001, 41), torch.float64),
    whole((150001, 33), torch.float32),
]
# The wide interleaved run's bounds (a vector a thread of a wave for 16-bit
# floats, a round of loads for 4- and 8-byte ones: 135k and 541k vectors on
# an H200) and its second-launch finish, either side of each bound, with
# sums of many spans and long controls:
# wide-interleaved-second-launch-switch.patch.
WIDE_INTERLEAVED_BOUND_CASES = [
    whole((30001, 33), torch.bfloat16),
    whole((40001, 33), torch.float16),
    whole((50001, 33), torch.bfloat16),
    whole((100001, 33), torch.float16),
    whole((50001, 33), torch.float32),
    whole((70001, 41), torch.float32),
    whole((100001, 41), torch.float32),
    whole((150001, 33), torch.float32),
    whole((30001, 33), torch.float64),
    whole((50001, 41), torch.float64),
    whole((100001, 41), torch.float64),
    whole((300001, 33), torch.float64),
    whole((64, 20001, 33), torch.float32, (1,)),
    whole((8, 100001, 33), torch.bfloat16, (1,)),
    whole((1000001, 33), torch.float16),
    whole((200001, 47), torch.bfloat16),
]
# Below the wide interleaved run's bounds, in the bands: whether 6312096's
# faster interleaved kernel moves the bounds (wide-interleaved-below-bounds-switch.patch,
# letter i: the run at any size its shape allows).
WIDE_INTERLEAVED_BELOW_BOUND_CASES = [
    whole((20001, 33), torch.float16),
    whole((30001, 33), torch.bfloat16),
    whole((20001, 47), torch.bfloat16),
    whole((10001, 33), torch.float16),
    whole((20001, 33), torch.float32),
    whole((50001, 33), torch.float32),
    whole((100001, 47), torch.float32),
    whole((20001, 33), torch.float64),
    whole((30001, 33), torch.float64),
    whole((50001, 47), torch.float64),
    whole((64, 3001, 33), torch.float32, (1,)),
]
# Around a lower bound for the wide interleaved run once it wins below the old
# bounds (session 73): 33-64 float columns from a third of a wave of vectors
# up, with letter i of wide-interleaved-below-bounds-switch.patch.
WIDE_INTERLEAVED_LOWER_BOUND_CASES = [
    whole((5001, 33), torch.float16),
    whole((15001, 33), torch.float16),
    whole((10001, 47), torch.bfloat16),
    whole((5001, 33), torch.float32),
    whole((10001, 33), torch.float32),
    whole((10001, 47), torch.float32),
    whole((20001, 63), torch.float32),
    whole((50001, 63), torch.float32),
    whole((10001, 33), torch.float64),
    whole((15001, 33), torch.float64),
    whole((25001, 33), torch.float64),
    whole((20001, 47), torch.float64),
    whole((50001, 63), torch.float64),
    whole((64, 1001, 33), torch.float32, (1,)),
    whole((16, 3001, 33), torch.bfloat16, (1,)),
]
# Mid-size column sums whose rows lie on the vector boundary (the vector
# bands take them), with long controls: letter a of
# aligned-interleaved-switch.patch reads them as one run of vectors.
ALIGNED_INTERLEAVED_CASES = [
    whole((30001, 64), torch.float16),
    whole((20001, 40), torch.float16),
    whole((50001, 48), torch.bfloat16),
    whole((100001, 64), torch.float16),
    whole((20001, 32), torch.float32),
    whole((50001, 36), torch.float32),
    whole((100001, 64), torch.float32),
    whole((30001, 34), torch.float64),
    whole((50001, 64), torch.float64),
    whole((50001, 16), torch.float32),
    whole((50001, 16), torch.float16),
    whole((50001, 16), torch.int32),
    whole((1000001, 32), torch.float32),
    whole((16, 3001, 64), torch.bfloat16, (1,)),
]
# Long sums that session 73's rule for the wide interleaved run newly takes
# (rows on the vector boundary, 43-64 4-byte and 43-48 8-byte columns), with
# mid-size controls: letter b of wide-interleaved-session-72-rule-switch.patch
# brings back session 72's rule.
WIDE_INTERLEAVED_NEW_RULE_CASES = [
    whole((1000001, 36), torch.float32),
    whole((1000001, 64), torch.float16),
    whole((1000001, 40), torch.bfloat16),
    whole((300001, 64), torch.float32),
    whole((300001, 47), torch.float64),
    whole((200001, 48), torch.float64),
    whole((1000001, 63), torch.float32),
    whole((2000001, 47), torch.float32),
    whole((30001, 64), torch.float16),
    whole((30001, 33), torch.bfloat16),
    whole((50001, 33), torch.float32),
]
# Around session 73's rule for aligned rows and 8-byte splits, with letter b
# of wide-interleaved-session-72-rule-switch.patch (call 4).
WIDE_INTERLEAVED_NEW_RULE_EDGE_CASES = [
    whole((20000, 64), torch.float32),
    whole((20001, 48), torch.float32),
    whole((100001, 44), torch.float32),
    whole((10001, 64), torch.bfloat16),
    whole((50001, 40), torch.float16),
    whole((300001, 41), torch.float64),
    whole((300001, 47), torch.float64),
    whole((16001, 33), torch.float16),
]
# Up to 32 columns on the vector boundary (the vector bands, 0.75-0.8x
# Inductor at mid sizes) and off it: letter a of
# narrow-aligned-interleaved-switch.patch reads the aligned ones as one run
# of vectors, letter w finishes the run's splits in a second launch, a warp a
# column, below 33 columns too.
NARROW_ALIGNED_INTERLEAVED_CASES = [
    whole((20001, 32), torch.float32),
    whole((50001, 16), torch.float16),
    whole((50001, 16), torch.int32),
    whole((200001, 31), torch.float16),
    whole((1000000, 3), torch.float32),
    whole((1000001, 32), torch.float32),
]
# Off-boundary sums of 4-31 interleaved columns, where the run finishes in
# its last block, a warp a column in turns of 8 warps: letter w of
# narrow-aligned-interleaved-switch.patch (a second launch) gained at 31
# columns and lost at 3 (session 73, call 6); where between them it pays.
NARROW_SECOND_LAUNCH_CASES = [
    whole((1000001, 5), torch.float16),
    whole((200001, 9), torch.float16),
    whole((200001, 12), torch.float16),
    element_in((500001, 24), torch.float16),
    whole((200001, 9), torch.float32),
    whole((500001, 15), torch.float32),
    whole((300001, 31), torch.float32),
    whole((200001, 17), torch.float64),
    whole((8, 2**20, 3), torch.bfloat16, (1,)),
]
# The wide interleaved run's sums, whose second launch (warp_an_output_kernel)
# starts early, with fp32 64x20001x33 dim=1 (8 splits a span: the last block
# finishes it, one launch) as a control: letter n of starts-early-switch.patch
# launches it plainly, as before session 74.
STARTS_EARLY_CASES = [
    whole((30001, 33), torch.bfloat16),
    whole((40001, 33), torch.float16),
    whole((50001, 33), torch.bfloat16),
    whole((100001, 33), torch.float16),
    whole((50001, 33), torch.float32),
    whole((100001, 41), torch.float32),
    whole((30001, 33), torch.float64),
    whole((100001, 41), torch.float64),
    whole((30001, 64), torch.float16),
    whole((150001, 33), torch.float32),
    whole((1000001, 33), torch.float16),
    whole((8, 100001, 33), torch.bfloat16, (1,)),
    whole((64, 20001, 33), torch.float32, (1,)),
]
# fp64 sums of 43-64 columns off the vector boundary, whose held partials
# allow under 3/8 of a wave of the run's splits (the bands take them):
# letter c of eight-byte-cap-switch.patch takes the run past that cap.
EIGHT_BYTE_CAP_CASES = [
    whole((20001, 47), torch.float64),
    whole((50001, 47), torch.float64),
    whole((100001, 47), torch.float64),
    whole((300001, 47), torch.float64),
    whole((20001, 55), torch.float64),
    whole((50001, 55), torch.float64),
    whole((20001, 63), torch.float64),
    whole((30001, 63), torch.float64),
    whole((50001, 63), torch.float64),
    whole((100001, 63), torch.float64),
    whole((300001, 63), torch.float64),
]
# 33-64 2- and 4-byte columns of one span on the vector boundary under 4.5
# elements a thread of the run's wave (the bands take them; elements a thread
# on 132 SMs in brackets), with fp32 12001x48 (4.3) near the bound: letter i
# of early-finish-bounds-switch.patch takes the run there.
ALIGNED_BELOW_BOUND_CASES = [
    whole((5001, 64), torch.float32),  # 2.4
    whole((10001, 36), torch.float32),  # 2.7
    whole((12001, 48), torch.float32),  # 4.3
    whole((7001, 64), torch.float16),  # 3.3
    whole((10001, 40), torch.bfloat16),  # 3.0
]
# 16-bit sums that 6b4e63e's bound (a vector a thread of a wave) moved from the
# 2-byte 4-lane L2 bands to the wide interleaved run, untimed there:
# wide-interleaved-second-launch-switch.patch, letter n for the bands.
WIDE_INTERLEAVED_MOVED_CASES = [
    whole((100001, 41), torch.float16),
    whole((100001, 45), torch.float16),
    whole((100001, 37), torch.bfloat16),
    whole((60001, 47), torch.float16),
]
# Whole-tensor sums (a sum over the only dim) around the one-wave/many-wave
# edge at 16x L2 (16-bit 2^28 and fp32 2^27 are 8.5x an H200's L2), with
# 2^24 (the 16-bit cases behind Inductor in session 64's full run) and fp32
# 2^26 as a control: many-waves-from-8x-switch.patch.
FULL_SUM_CASES = [
    (f"2^{exponent}", (2**exponent,), dtype, full, (0,))
    for exponent, dtype in [
        (28, torch.bfloat16),
        (28, torch.float16),
        (27, torch.float32),
        (24, torch.float16),
        (24, torch.bfloat16),
        (26, torch.float32),
    ]
]
# Split band sums finished through L2 (the last block's ticket), against the
# early-started second launch: session 75's band-second-launch-switch.patch
# (letter p, every such sum), then band-finish-switch.patch (letters n and b).
# Aligned narrow sums behind Inductor (session 74), off-boundary and 1-byte
# bands, long sums, and sums in clusters as controls.
BAND_SECOND_LAUNCH_CASES = [
    whole((20001, 32), torch.float32),
    whole((50001, 16), torch.float16),
    whole((50001, 16), torch.int32),
    whole((100001, 16), torch.int32),
    whole((50001, 32), torch.float32),
    whole((40001, 16), torch.bfloat16),
    whole((20001, 16), torch.float64),
    whole((20001, 16), torch.int64),
    whole((8192, 4096), torch.float32),
    whole((5001, 33), torch.float32),
    whole((15001, 33), torch.float16),
    whole((70001, 24), torch.int8),
    whole((70001, 31), torch.int8),
    whole((100001, 65), torch.float16),
    whole((1000001, 32), torch.float32),
    whole((16, 2048, 4096), torch.bfloat16, (0, 1)),
    whole((20001, 66), torch.float32),
    whole((1024, 1024), torch.int32),
]
# 8-byte partials in band-finish-switch.patch's second launch (session 75, call
# 3: fp64 20001x16 lost with 128 bytes in flight, int64 of the same shape gained),
# with the 2- and 4-byte sums that gained and bf16 16x2048x4096 dim=(0,1) (lost 0.25).
BAND_FINISH_EIGHT_BYTE_CASES = [
    whole((20001, 16), torch.float64),
    whole((20001, 16), torch.int64),
    whole((50001, 16), torch.float64),
    whole((50001, 16), torch.int64),
    whole((20001, 32), torch.float64),
    whole((100001, 16), torch.float64),
    whole((20001, 32), torch.float32),
    whole((16, 2048, 4096), torch.bfloat16, (0, 1)),
]
# The flat band kernels' parameter layout (FlatColumnProblem, 3407dff; its patch
# is in that commit's parent) and the second launch's whole rounds
# (band-partials-whole-rounds.patch), across builds: the aligned bands that finish
# in either launch, the 8-byte finishes, and two long sums that must not move.
BAND_PARAMETER_CASES = [
    whole((20001, 32), torch.float32),
    whole((50001, 16), torch.float16),
    whole((100001, 16), torch.int32),
    whole((50001, 32), torch.float32),
    whole((20001, 16), torch.float64),
    whole((50001, 16), torch.float64),
    whole((20001, 32), torch.float64),
    whole((20001, 16), torch.int64),
    whole((5001, 33), torch.float32),
    whole((70001, 24), torch.int8),
    whole((1000001, 32), torch.float32),
    whole((16, 2048, 4096), torch.bfloat16, (0, 1)),
]
# The interleaved kernel's parameters ahead of the outer dims (InterleavedSpans,
# session 76), across builds: the wide run on and off the vector boundary, a few
# long columns, and spans of a 3-d sum.
INTERLEAVED_PARAMETER_CASES = [
    whole((10001, 36), torch.float32),
    whole((12001, 48), torch.float32),
    whole((10001, 40), torch.bfloat16),
    whole((30001, 33), torch.bfloat16),
    whole((30001, 63), torch.float64),
    whole((7001, 64), torch.float16),
    whole((200001, 9), torch.float16),
    whole((300001, 31), torch.float32),
    whole((1000000, 3), torch.float32),
    whole((64, 20001, 33), torch.float32, (1,)),
]
# 1-byte band sums off the vector boundary, whose flat column_sum_kernel spills
# more with FlatColumnProblem (session 76, ptxas), and an aligned one beside them
# (int8 70001x24, which gained): one-byte-off-boundary-general-problem.patch
# against the build without it.
ONE_BYTE_OFF_BOUNDARY_CASES = [
    whole((70001, 31), torch.int8),
    whole((20001, 63), torch.uint8),
    whole((3001, 1001), torch.uint8),
    whole((1024, 4095), torch.bool),
    whole((2048, 1001), torch.int8),
    whole((70001, 24), torch.int8),
]
# Row sums whose kernels split each row (few outputs) or not, for
# lean-band-prologue.patch's EvenSplits::range and IndexDivider in row_sum.cu
# (session 77), with issue 13's listed row shapes.
LEAN_PROLOGUE_ROW_CASES = [
    whole((3, 1000000), torch.float32, (1,)),
    whole((16, 1000000), torch.float32, (1,)),
    whole((64, 100000), torch.float16, (1,)),
    whole((1, 4096), torch.float32, (1,)),
    whole((8192, 4096), torch.float32, (1,)),
    whole((4096, 32000), torch.float32, (1,)),
    whole((16, 2048, 4096), torch.bfloat16, (2,)),
]
# 1- and 2-byte integer columns that interleaved_column_sum.cu reads since
# session 77 (their threads sum in int32), from the band kernels (up to 32
# columns off the vector boundary) or the row class (2 and 3 columns); the
# aligned ones that aligned-narrow-integers-interleaved-switch.patch's letter a
# sends there too (int8 70001x24, int16 50001x16), and a 3-d sum's spans.
NARROW_INTEGER_INTERLEAVED_CASES = [
    whole((70001, 31), torch.int8),
    whole((70001, 31), torch.uint8),
    whole((70001, 31), torch.int16),
    whole((20001, 31), torch.bool),
    whole((5001, 13), torch.uint8),
    whole((20001, 17), torch.int8),
    whole((200001, 31), torch.int8),
    whole((1000000, 3), torch.int8),
    whole((1000000, 2), torch.bool),
    whole((1000000, 3), torch.int16),
    whole((8, 100001, 31), torch.int8, (1,)),
    whole((70001, 24), torch.int8),
    whole((50001, 16), torch.int16),
    whole((70001, 32), torch.uint8),
]
# Where the narrow integers' interleaved run starts to win (session 77, call
# 3): 1- and 2-byte columns from 0.18 to 1.0 vectors a thread of its wave (135k
# threads on 132 SMs), beside floating ones of the sizes where it lost.
NARROW_INTEGER_CROSSOVER_CASES = [
    whole((30001, 31), torch.int8),
    whole((40001, 31), torch.int8),
    whole((50001, 31), torch.int8),
    whole((10001, 31), torch.int16),
    whole((20001, 31), torch.int16),
    whole((35001, 31), torch.int16),
    whole((300001, 3), torch.int8),
    whole((500001, 3), torch.int8),
    whole((200001, 2), torch.bool),
    whole((100001, 9), torch.uint8),
    whole((5001, 13), torch.float32),
    whole((20001, 17), torch.float32),
    whole((20001, 31), torch.bfloat16),
]
# The interleaved run's small sums of 4-32 columns off the vector boundary
# against the band kernels' clusters (small-interleaved-clusters-switch.patch,
# letter c), with long ones that must not move.
SMALL_INTERLEAVED_CASES = [
    whole((5001, 13), torch.float32),
    whole((20001, 17), torch.float32),
    whole((20001, 31), torch.bfloat16),
    whole((10001, 9), torch.float16),
    whole((3001, 31), torch.float32),
    whole((5001, 15), torch.float64),
    whole((5001, 31), torch.bfloat16),
    whole((10001, 5), torch.float32),
    whole((20001, 17), torch.int32),
    whole((10001, 9), torch.int64),
    whole((200001, 9), torch.float16),
    whole((300001, 31), torch.float32),
]
# The interleaved run's parking in shared memory (parked-positions-by-element
# .patch): 1-byte, 2-byte and 4-byte position sums, C odd and C = 32 off the
# boundary (one bank a column's reads before), small and long.
INTERLEAVED_PARKING_CASES = [
    whole((70001, 31), torch.int8),
    whole((70001, 31), torch.int16),
    whole((200001, 31), torch.int8),
    whole((1000000, 3), torch.int8),
    element_in((70001, 32), torch.uint8),
    whole((200001, 9), torch.float16),
    whole((20001, 31), torch.bfloat16),
    element_in((20001, 32), torch.float32),
    whole((5001, 13), torch.float32),
    whole((1000000, 3), torch.float32),
    whole((30001, 63), torch.float64),
    whole((10001, 36), torch.float32),
]
# Where letter c's clusters stop winning over the interleaved run (session 77,
# call 5): 4-32 floating columns off the vector boundary past call 4's sizes.
SMALL_INTERLEAVED_CROSSOVER_CASES = [
    whole((20001, 17), torch.float32),
    whole((30001, 17), torch.float32),
    whole((50001, 13), torch.float32),
    whole((10001, 31), torch.float32),
    element_in((20001, 32), torch.float32),
    whole((10001, 31), torch.bfloat16),
    whole((50001, 31), torch.bfloat16),
    whole((30001, 9), torch.float16),
    whole((20001, 15), torch.float64),
]
# 1-byte column sums of ~4k columns off the vector boundary (bool 1024x4095:
# 11.65 us against Inductor's 5.85, session 77), beside an aligned twin and
# longer ones: which bands and kernels they take.
WIDE_ONE_BYTE_CASES = [
    whole((1024, 4095), torch.bool),
    whole((1024, 4096), torch.bool),
    whole((1024, 4095), torch.int8),
    whole((4096, 4095), torch.uint8),
    whole((1024, 4095), torch.float16),
    whole((1024, 4095), torch.float32),
]
# 1-byte column sums that the off-boundary vector bands read (8 columns a
# thread) before c9dff14, small to long: one-byte-off-boundary-columns-switch
# .patch reads them 4 columns a thread (q) or a column a thread (s), the
# route they take since.
ONE_BYTE_OFF_BOUNDARY_VECTOR_CASES = [
    whole((1024, 4095), torch.bool),
    whole((1024, 4095), torch.int8),
    whole((4096, 4095), torch.uint8),
    whole((3001, 1001), torch.uint8),
    whole((20001, 63), torch.uint8),
    whole((16384, 1001), torch.int8),
    whole((8192, 4095), torch.int8),
    whole((2048, 50257), torch.bool),
]
# 1- and 2-byte integer columns of 4-32 a row on the vector boundary, which
# the vector bands read before session 78, small to long, against the
# interleaved run (aligned-narrow-integers-bounded-switch.patch, letters u
# and a).
ALIGNED_NARROW_INTEGER_CASES = [
    whole((5001, 16), torch.int8),
    whole((20001, 16), torch.int8),
    whole((40001, 24), torch.int8),
    whole((70001, 24), torch.int8),
    whole((30001, 32), torch.int8),
    whole((300001, 16), torch.int8),
    whole((70001, 32), torch.uint8),
    whole((50001, 16), torch.bool),
    whole((10001, 16), torch.int16),
    whole((20001, 16), torch.int16),
    whole((50001, 16), torch.int16),
    whole((30001, 8), torch.int16),
    whole((200001, 8), torch.int16),
    whole((16, 20001, 8), torch.int16, (1,)),
]
# Aligned 1- and 2-byte integer columns that a column a thread would read in
# clusters, which kept the vector bands in session 78 (the clusters or the
# run since session 79): small-clusters-switch.patch's letters u (the run)
# and v (a column a thread's clusters).
ALIGNED_NARROW_SMALL_CASES = [
    whole((30001, 8), torch.int16),
    whole((10001, 8), torch.int16),
    whole((20001, 16), torch.int16),
    whole((10001, 16), torch.int16),
    whole((16, 20001, 8), torch.int16, (1,)),
    whole((5001, 16), torch.int8),
    whole((20001, 16), torch.int8),
    whole((10001, 8), torch.int8),
    whole((30001, 32), torch.int8),
    whole((40001, 8), torch.uint8),
    whole((20001, 16), torch.bool),
]
# Interleaved sums of 4-32 columns whose column-a-thread clusters are 24-96
# blocks of up to 4 rounds a thread, which letter b's bound leaves in the
# run (session 78): small-clusters-switch.patch's letter c.
SECOND_LIMIT_INTERLEAVED_CASES = [
    whole((20001, 31), torch.bfloat16),
    element_in((20001, 32), torch.float32),
    whole((15001, 31), torch.float32),
    whole((40001, 31), torch.float32),
    whole((15001, 31), torch.bfloat16),
    whole((30001, 31), torch.bfloat16),
    whole((15001, 17), torch.float32),
    whole((30001, 17), torch.int32),
    whole((10001, 15), torch.float64),
    whole((30001, 15), torch.float64),
    element_in((20001, 24), torch.float32),
    whole((20001, 9), torch.float16),
]
# Wide interleaved sums (33-64 columns) of C a multiple of 8, parked thread
# by thread since c096b93: wide-parking-switch.patch's letter w parks them
# element by element, as up to 32 columns; with a C = 63 twin that no
# letter moves.
WIDE_PARKING_CASES = [
    whole((30001, 64), torch.float16),
    whole((20000, 64), torch.float32),
    whole((10001, 40), torch.bfloat16),
    whole((12001, 48), torch.float32),
    whole((1000001, 40), torch.bfloat16),
    element_in((200001, 64), torch.float32),
    whole((30001, 63), torch.float64),
]
# Aligned 1- and 2-byte integer columns whose column-a-thread clusters give
# a thread 8-16 rounds of loads (session 79): where small-clusters-switch
# .patch's letters u (the run) and v (the clusters) cross.
ALIGNED_NARROW_ROUNDS_CASES = [
    whole((20001, 8), torch.int16),
    whole((25001, 16), torch.int16),
    whole((15001, 32), torch.int16),
    whole((20001, 32), torch.int16),
    whole((8, 20001, 8), torch.int16, (1,)),
    whole((20001, 8), torch.int8),
    whole((25001, 16), torch.int8),
    whole((30001, 16), torch.int8),
    whole((20001, 32), torch.int8),
    whole((30001, 16), torch.bool),
    whole((30001, 8), torch.uint8),
    whole((16, 20001, 8), torch.int8, (1,)),
]
# Interleaved floating sums whose column-a-thread clusters give a thread up
# to 3 of the cluster kernel's rounds (session 79): letter c beside a bound
# of 3 rounds rather than 2.
SECOND_LIMIT_ROUNDS_CASES = [
    whole((20001, 15), torch.float64),
    whole((24001, 15), torch.float64),
    whole((24001, 31), torch.bfloat16),
    whole((24001, 17), torch.float32),
    whole((24001, 9), torch.float16),
    whole((20001, 13), torch.float32),
    whole((20001, 17), torch.int32),
    whole((20001, 20), torch.bfloat16),
    whole((18001, 31), torch.float32),
]
# 1- and 2-byte integer columns of 4-32 a row off the vector boundary that a
# column a thread reads in clusters (always, since session 77), of 2-4 of the
# cluster kernel's rounds in 16-64 blocks: narrow-off-boundary-run-switch
# .patch's letter o sends those of 3 rounds in under a quarter of the SMs, or
# of 4, to the run, whose last block adds 9-31 columns in lane groups since
# session 79.
NARROW_OFF_BOUNDARY_RUN_CASES = [
    whole((20001, 9), torch.int8),
    whole((30001, 13), torch.int8),
    whole((30001, 31), torch.int8),
    whole((20001, 17), torch.int8),
    whole((20001, 9), torch.int16),
    whole((20001, 13), torch.int16),
    whole((30001, 15), torch.int16),
    whole((20001, 31), torch.int16),
    whole((25001, 11), torch.bool),
    whole((30001, 7), torch.uint8),
]
# Interleaved runs whose blocks of 4 loads a thread fill under a quarter of the
# SMs, which take blocks of 2 since session 80 (run_shape), beside 2-5 column
# runs that call 3 did not time, the edge (int8 32001x16: 32 blocks at 4
# loads, 63 at 2; fp16 30001x9: 33 blocks stays at 4), and 2x20001x9's two
# spans of 22 splits (lane groups of 16 in the last block). Timed in a build
# of each rule (the final one and interleaved-four-loads-revert.patch).
FEW_BLOCKS_RUN_CASES = [
    whole((20001, 8), torch.int8),
    whole((25001, 16), torch.int8),
    whole((30001, 16), torch.bool),
    whole((30001, 8), torch.uint8),
    whole((20001, 8), torch.int16),
    whole((20001, 16), torch.int16),
    whole((20001, 9), torch.float16),
    whole((32001, 16), torch.int8),
    whole((30001, 9), torch.float16),
    whole((2, 20001, 9), torch.float16, (1,)),
    whole((20001, 3), torch.float32),
    whole((40001, 3), torch.bfloat16),
    whole((30001, 3), torch.int16),
    whole((10001, 5), torch.float32),
    whole((40001, 5), torch.bfloat16),
]
# Interleaved runs whose splits the held partials cap under a wave (8448
# 8-byte or 16896 4-byte accumulators on 132 SMs, over spans x columns): fp64
# past 16 columns, 4-byte accumulators past 32, int64 ones (every integer)
# past 16; and wide fp64 sums that the bound leaves to the bands
# (interleaves_wide_columns' 3/8 of a wave). Session 83:
# uncapped-run-splits-switch.patch, letters p (the run's splits up to a wave)
# and q (p, and the wide rule without the bound).
UNCAPPED_RUN_SPLIT_CASES = [
    whole((30001, 63), torch.float64),
    whole((20001, 47), torch.float64),
    whole((50001, 55), torch.float64),
    whole((30001, 33), torch.float64),
    whole((100001, 41), torch.float64),
    whole((300001, 31), torch.float64),
    whole((50001, 63), torch.float64),
    whole((100001, 63), torch.float64),
    whole((300001, 47), torch.float64),
    whole((300001, 63), torch.float32),
    whole((300001, 63), torch.bfloat16),
    whole((200001, 31), torch.int8),
    whole((100001, 31), torch.int32),
    whole((8, 100001, 31), torch.int8, (1,)),
]
# Interleaved runs of 133-528 splits (a full wave, a held-partials cap or one
# round of loads a thread), against Inductor (session 83, call 2: int32
# 100001x31 8.27 us against 7.05, fp64 30001x63 8.70 against 7.14):
# run-split-count-switch.patch, letters h (half the splits) and e (a quarter).
RUN_SPLIT_COUNT_CASES = [
    whole((100001, 31), torch.int32),
    whole((30001, 31), torch.int32),
    whole((30001, 63), torch.float64),
    whole((30001, 33), torch.float64),
    whole((70001, 31), torch.uint8),
    whole((70001, 31), torch.int16),
    whole((70001, 31), torch.int8),
    whole((300001, 31), torch.float32),
    whole((200001, 9), torch.float16),
    whole((1000000, 3), torch.float32),
]
# Interleaved runs of a wave of splits (528 blocks on 132 SMs) or near one, where
# half the splits gained (session 83, call 4: fp32 300001x31 14.0 -> 12.9 us,
# 1000000x3 7.2 -> 6.3), beside runs of 200-272 splits where it lost (int32
# 100001x31, fp16 200001x9, int16 70001x31) or gained (int32 30001x31):
# run-split-fraction-switch.patch, letters c (at most 512 splits: one batch of
# the finish's warp), w (at most half a wave of blocks), h (half the splits).
FULL_WAVE_RUN_CASES = [
    whole((300001, 31), torch.float32),
    whole((1000000, 3), torch.float32),
    whole((3000001, 3), torch.float32),
    whole((1000001, 5), torch.float16),
    whole((4000000, 3), torch.int8),
    whole((2000001, 47), torch.float32),
    whole((8, 1048576, 3), torch.bfloat16, (1,)),
    whole((64, 20001, 33), torch.float32, (1,)),
    whole((200001, 31), torch.int8),
    whole((100001, 31), torch.int32),
    whole((30001, 31), torch.int32),
    whole((200001, 9), torch.float16),
    whole((70001, 31), torch.int16),
]
# The full-wave runs' crossover (session 84, call 1: at most half a wave of
# blocks gained 0.5-2 us on runs of 1.2-4.3 rounds of loads a thread, lost 2-4%
# on 5.8-64 rounds), by rounds at a full wave (fp32 x31: 4.3, 6, 8, 12; x3:
# 1.4, 4.2, 6, 8, 16), spans (1, 8, 64) and type, beside the capacity-bound
# runs: run-half-wave-eight-loads-switch.patch, letters w (half a wave) and e
# (half a wave of blocks of 8 loads a round).
HALF_WAVE_CASES = [
    whole((300001, 31), torch.float32),
    whole((418001, 31), torch.float32),
    whole((558001, 31), torch.float32),
    whole((837001, 31), torch.float32),
    whole((2000001, 47), torch.float32),
    whole((1000000, 3), torch.float32),
    whole((3000001, 3), torch.float32),
    whole((4330001, 3), torch.float32),
    whole((5770001, 3), torch.float32),
    whole((11540001, 3), torch.float32),
    whole((2800001, 3), torch.bfloat16),
    whole((8, 262144, 3), torch.bfloat16, (1,)),
    whole((8, 1048576, 3), torch.bfloat16, (1,)),
    whole((64, 2001, 33), torch.float32, (1,)),
    whole((64, 5001, 33), torch.float32, (1,)),
    whole((64, 20001, 33), torch.float32, (1,)),
    whole((4000000, 3), torch.int8),
    whole((12000001, 3), torch.int8),
    whole((1000001, 5), torch.float16),
    whole((4000001, 5), torch.float16),
    whole((200001, 9), torch.float16),
    whole((100001, 31), torch.int32),
    whole((30001, 31), torch.int32),
    whole((200001, 31), torch.int8),
    whole((70001, 31), torch.int16),
    whole((70001, 31), torch.uint8),
    whole((30001, 63), torch.float64),
    whole((30001, 33), torch.float64),
]
# Bounds of the run's 8-load blocks (3a97ee7): runs of 1.16-1.45 rounds of 8
# loads a thread in a full wave of them, where 4 loads in as many blocks won in
# session 84's call 2, beside 1.9-4.3 rounds; and runs of 66-131 blocks of 4
# loads, which keep 4: run-long-loads-bounds-switch.patch, letters w and b.
LONG_RUN_BOUND_CASES = [
    whole((1000000, 3), torch.float32),
    whole((1000001, 5), torch.float16),
    whole((8, 262144, 3), torch.bfloat16, (1,)),
    whole((100001, 31), torch.int32),
    whole((4000000, 3), torch.int8),
    whole((2800001, 3), torch.bfloat16),
    whole((300001, 31), torch.float32),
    whole((30001, 17), torch.int32),
    whole((20001, 31), torch.bfloat16),
    whole((70001, 24), torch.int8),
    whole((50001, 16), torch.int16),
    whole((30001, 17), torch.float32),
    whole((100001, 9), torch.float16),
    whole((100001, 16), torch.uint8),
    whole((25001, 13), torch.float32),
]
# Off-boundary 1- and 2-byte integer columns that session 81's first rule
# (5b26969: the run from 3 rounds of the clusters' loads for 2-byte, 4 for
# 1-byte, in under a quarter of the SMs) was not fitted on: 1-byte at 3
# rounds, at 4 (bool 40001x13 and int16 40001x11 have no clusters: the run
# under every letter); 2-byte at 3; 40-56 blocks; two spans. At 4 rounds in 40-64
# blocks the run won, which gave clusters_take_interleaved_columns its final
# form (354020f). Letters of run-crossover-switch.patch: r (the run), c (the
# clusters).
NARROW_OFF_BOUNDARY_RULE_CASES = [
    whole((20001, 13), torch.uint8),
    whole((18001, 7), torch.bool),
    whole((22001, 11), torch.int8),
    whole((30001, 9), torch.int8),
    whole((26001, 15), torch.uint8),
    whole((40001, 13), torch.bool),
    whole((32001, 5), torch.int8),
    whole((20001, 7), torch.int16),
    whole((18001, 15), torch.int16),
    whole((17001, 11), torch.int16),
    whole((40001, 11), torch.int16),
    whole((30001, 21), torch.int16),
    whole((30001, 19), torch.int8),
    whole((20001, 27), torch.int16),
    whole((4, 20001, 9), torch.int16, (1,)),
    whole((2, 30001, 13), torch.int8, (1,)),
]
# The run's 8-load blocks at 3 an SM for integers too (80 registers, where
# ptxas gave them 91-92 under a bound of 128: 2 an SM), so that one round of
# up to 396 blocks fits a wave (int32 100001x31: 379 blocks, 0.89x Inductor in
# half a wave at 1.43 rounds), beside runs whose grid stays; and spans past
# half a wave up to the 8-load wave (265-396 spans), never timed at 8 loads:
# run-three-blocks-an-sm-switch.patch, letter s.
THREE_AN_SM_CASES = [
    whole((100001, 31), torch.int32),
    whole((4000000, 3), torch.int8),
    whole((1000001, 5), torch.int16),
    whole((300001, 9), torch.int32),
    whole((30001, 31), torch.int32),
    whole((70001, 31), torch.int16),
    whole((70001, 31), torch.uint8),
    whole((200001, 31), torch.int8),
    whole((2800001, 3), torch.int16),
    whole((300001, 31), torch.float32),
    whole((1000000, 3), torch.float32),
    whole((20001, 31), torch.bfloat16),
    whole((300, 4001, 3), torch.float32, (1,)),
    whole((300, 4001, 3), torch.bfloat16, (1,)),
    whole((300, 4001, 3), torch.int16, (1,)),
    whole((384, 2001, 5), torch.float16, (1,)),
]
# Runs of 66-131 blocks of 4 loads, where a warp's ~400-600 instructions are the
# critical path (ncu, session 85, call 4: bf16 20001x31 0.83x Inductor), beside
# long runs, one-round 8-load runs and narrow integers: session 86's cuts of a
# warp's instructions (a build of each tree, in turns; landed in session 86).
LEAN_RUN_CASES = [
    whole((20001, 31), torch.bfloat16),
    whole((30001, 17), torch.float32),
    whole((25001, 13), torch.float32),
    whole((30001, 17), torch.int32),
    whole((100001, 9), torch.float16),
    whole((50001, 16), torch.int16),
    whole((70001, 31), torch.uint8),
    whole((30001, 31), torch.int32),
    whole((100001, 31), torch.int32),
    whole((300001, 31), torch.float32),
    whole((1000000, 3), torch.float32),
    whole((2800001, 3), torch.bfloat16),
    whole((4000000, 3), torch.int8),
    whole((300, 4001, 3), torch.bfloat16, (1,)),
    whole((30001, 63), torch.float64),
]
# Column sums of 9-32 interleaved columns, whose warps add 2-4 columns each
# after the barrier, beside controls of 3 and 63 columns: the most reads a lane
# makes of one column (strided_sums' kMostReads) and 3 columns a warp apart
# from 4 (session 86, call 3: the in-place tree against a variant build of the
# tree before them).
MOST_READS_CASES = [
    whole((20001, 31), torch.bfloat16),
    whole((20001, 25), torch.bfloat16),
    whole((30001, 17), torch.float32),
    whole((20001, 31), torch.float32),
    whole((300001, 31), torch.float32),
    whole((40001, 20), torch.float16),
    whole((30001, 31), torch.float64),
    whole((30001, 13), torch.float64),
    whole((30001, 31), torch.int32),
    whole((30001, 17), torch.int32),
    whole((50001, 24), torch.int16),
    whole((70001, 31), torch.uint8),
    whole((1000000, 3), torch.float32),
    whole((30001, 63), torch.float64),
    whole((300, 4001, 3), torch.bfloat16, (1,)),
]
# Column sums of 13-31 interleaved 8-byte columns off the vector boundary, the
# run's largest gap to Inductor (fp64 30001x31 dim=0 0.73x, H200, session 86),
# beside shorter and longer ones and int64: which of the run and a column a
# thread's clusters reads them faster, and with how many loads a thread
# (eight-byte-interleaved-switch.patch, session 87): call 1's cases, then
# call 2's edges of the 4-round rule (24001 and 25001 rows of 31), int64 and
# long controls.
EIGHT_BYTE_INTERLEAVED_CASES = [
    whole((30001, 31), torch.float64),
    whole((30001, 13), torch.float64),
    whole((30001, 17), torch.float64),
    whole((10001, 31), torch.float64),
    whole((20001, 31), torch.float64),
    whole((50001, 31), torch.float64),
    whole((100001, 31), torch.float64),
    whole((30001, 31), torch.int64),
    whole((24001, 31), torch.float64),
    whole((25001, 31), torch.float64),
    whole((20001, 31), torch.int64),
    whole((300001, 31), torch.float64),
    whole((30001, 63), torch.float64),
]
# 8-byte interleaved sums that session 87's one-round rule (32ab0ac) moved
# without a timing of their own (helper-70's review): 3-9 columns, spans of
# a dim=1 sum, 24 columns an element in (by element), and the period edge
# fp64 16624x17 (one round) / 16625x17 (clusters). To time against a
# variant build of the tree before the rule (NOTES session 87, Next 1).
EIGHT_BYTE_ONE_ROUND_CASES = [
    whole((200001, 3), torch.float64),
    whole((100001, 5), torch.float64),
    whole((60001, 9), torch.float64),
    whole((200001, 3), torch.int64),
    whole((2, 20001, 9), torch.float64, (1,)),
    whole((4, 10001, 31), torch.float64, (1,)),
    element_in((30001, 24), torch.float64),
    whole((16624, 17), torch.float64),
    whole((16625, 17), torch.float64),
]
# 8-byte runs past one round, whose 8-load loop ptxas issued in two halves
# (eight-byte-pipelined-rounds-switch.patch, session 88, in git history): up
# to 32 columns (letter h) and 33-64 (letter w), beside one-round controls.
EIGHT_BYTE_PIPELINED_CASES = [
    whole((50001, 31), torch.float64),
    whole((100001, 31), torch.float64),
    whole((300001, 31), torch.float64),
    whole((100001, 31), torch.int64),
    whole((100001, 9), torch.float64),
    whole((30001, 63), torch.float64),
    whole((20001, 47), torch.float64),
    whole((30001, 33), torch.float64),
    whole((50001, 55), torch.float64),
    whole((30001, 31), torch.float64),
    whole((30001, 13), torch.float64),
]
# The landed rule of the pipelined 8-byte rounds (half a wave of 8 loads where
# 4 would take more than 4 rounds), timed against the build before it: its
# edge (fp64 71872 rows of 31, 4 rounds, and 71873), a long wide run the
# variants did not time (fp64 300001x33), and int16 spans that fit a wave
# of 8-load blocks since the finish's reads went out together (e2a31fc);
# and fp64 50001x63 and 100001x47, which the bands keep (1601520).
EIGHT_BYTE_HALF_WAVE_CASES = [
    *EIGHT_BYTE_PIPELINED_CASES,
    whole((71872, 31), torch.float64),
    whole((71873, 31), torch.float64),
    whole((300001, 33), torch.float64),
    whole((50001, 63), torch.float64),
    whole((100001, 47), torch.float64),
    whole((300, 4001, 3), torch.int16, (1,)),
]
# The 8-byte routes that the finish's reads in flight and the pipelined
# 8-load rounds may have moved (eight-byte-routes-switch.patch, session 88):
# clusters or run (letter r), the wide bands or run (w), and the half-wave
# bound's untimed band of 4.0-5.6 rounds of 4 loads (b).
EIGHT_BYTE_ROUTES_CASES = [
    whole((16625, 17), torch.float64),
    whole((16624, 17), torch.float64),
    whole((4, 10001, 31), torch.float64, (1,)),
    whole((8001, 31), torch.float64),
    whole((50001, 63), torch.float64),
    whole((100001, 47), torch.float64),
    whole((100001, 63), torch.float64),
    whole((30001, 63), torch.float64),
    whole((71873, 31), torch.float64),
    whole((80001, 31), torch.float64),
    whole((85001, 31), torch.float64),
    whole((89841, 31), torch.float64),
    whole((95001, 31), torch.float64),
    whole((80001, 31), torch.int64),
]
# Session 89's eight-byte-mid-runs-switch.patch: m, 8-byte runs of up to 32
# columns between one round of 8 loads and 5 rounds of 4 past the held
# partials' cap (a wave of 4-load blocks); c, the half-wave bound at 6 rounds;
# x, the wide bound at 20 rounds; and (build O) the clusters and bands that
# session 89's landed routes left.
EIGHT_BYTE_MID_RUN_CASES = [
    whole((50001, 31), torch.float64),
    whole((60001, 31), torch.float64),
    whole((71873, 31), torch.float64),
    whole((85001, 31), torch.float64),
    whole((60001, 31), torch.int64),
    whole((80001, 31), torch.int64),
    whole((4, 10001, 31), torch.float64, (1,)),
    whole((89841, 31), torch.float64),
    whole((95001, 31), torch.float64),
    whole((100001, 31), torch.float64),
    whole((100001, 31), torch.int64),
    whole((100001, 63), torch.float64),
    element_in((150001, 64), torch.float64),
    whole((200001, 47), torch.float64),
    whole((300001, 47), torch.float64),
    whole((150001, 55), torch.float64),
    whole((16625, 17), torch.int64),
    whole((8001, 31), torch.int64),
    whole((4, 10001, 17), torch.float64, (1,)),
    whole((50001, 63), torch.float64),
]
# Session 89's wide-run-unbounded-switch.patch (u: fp64 33-64 columns past 42
# take the run at any length) and eight-byte-pipelined-four-loads.patch (a
# build: 8-byte runs of 4 loads a thread pipeline their rounds).
WIDE_AND_MID_RUN_CASES = [
    whole((300001, 63), torch.float64),
    whole((600001, 55), torch.float64),
    whole((1000001, 47), torch.float64),
    whole((1000001, 63), torch.float64),
    element_in((500001, 64), torch.float64),
    whole((50001, 31), torch.float64),
    whole((60001, 31), torch.float64),
    whole((71873, 31), torch.float64),
    whole((85001, 31), torch.float64),
    whole((60001, 31), torch.int64),
    whole((80001, 31), torch.int64),
    whole((4, 10001, 31), torch.float64, (1,)),
    whole((16625, 17), torch.float64),
    whole((8001, 31), torch.float64),
    whole((16625, 17), torch.int64),
    whole((20001, 47), torch.float64),
    whole((30001, 33), torch.float64),
    whole((15001, 33), torch.float64),
    whole((100001, 31), torch.float64),
    whole((30001, 31), torch.float64),
]
# Session 89's wide-run-many-splits-switch.patch: g, 8-byte 33-64 columns of
# 9/8 of the SMs' splits or more take the run at any length; u, all of them.
WIDE_MANY_SPLIT_CASES = [
    whole((400001, 47), torch.float64),
    whole((1000001, 47), torch.float64),
    whole((400001, 50), torch.float64),
    whole((600001, 55), torch.float64),
    whole((1000001, 55), torch.float64),
    whole((400001, 56), torch.float64),
    whole((800001, 56), torch.float64),
    whole((400001, 57), torch.float64),
    whole((300001, 63), torch.float64),
    whole((1000001, 63), torch.float64),
]
# Session 89's eight-byte-few-clusters-switch.patch: n, 8-byte interleaved sums
# never take the clusters, beside the few-block ones that c37aa57 leaves there.
EIGHT_BYTE_FEW_CLUSTER_CASES = [
    whole((5001, 15), torch.float64),
    whole((10001, 9), torch.int64),
    whole((10001, 9), torch.float64),
    whole((8001, 13), torch.float64),
    whole((3001, 15), torch.float64),
    whole((12001, 5), torch.float64),
    element_in((6001, 16), torch.int64),
    whole((16625, 17), torch.float64),
]
# Session 89's eight-byte-cluster-rows-switch.patch: k, the few-block 8-byte
# clusters up to 6 rows a thread only.
EIGHT_BYTE_CLUSTER_ROW_CASES = [
    whole((3001, 15), torch.float64),
    whole((5001, 15), torch.float64),
    element_in((6001, 16), torch.int64),
    whole((6144, 15), torch.float64),
    whole((6145, 15), torch.float64),
    whole((7001, 15), torch.float64),
    whole((8001, 13), torch.float64),
    whole((10001, 9), torch.float64),
    whole((10001, 9), torch.int64),
    whole((12001, 5), torch.float64),
]
# Session 90's wide-run-rounds-bound-switch.patch: r, the one-span wide run's
# rounds bound at 40 rounds of its loads instead of 20.
WIDE_ROUNDS_BOUND_CASES = [
    whole((200001, 63), torch.float64),
    whole((250001, 63), torch.float64),
    whole((300001, 63), torch.float64),
    whole((340001, 63), torch.float64),
    whole((360001, 63), torch.float64),
    element_in((250001, 64), torch.float64),
    whole((250001, 60), torch.float64),
    whole((400001, 57), torch.float64),
    whole((450001, 57), torch.float64),
    element_in((500001, 64), torch.float64),
    whole((1000001, 63), torch.float64),
]
# Session 90's mid-run-round-loads-switch.patch: f and s, 8-byte runs of up to
# 32 columns in rounds of 5 or 6 loads where that takes fewer rounds than 4.
MID_RUN_ROUND_LOAD_CASES = [
    whole((50001, 31), torch.float64),
    whole((60001, 31), torch.float64),
    whole((71873, 31), torch.float64),
    whole((85001, 31), torch.float64),
    whole((60001, 31), torch.int64),
    whole((80001, 31), torch.int64),
    whole((4, 10001, 31), torch.float64, (1,)),
    whole((40001, 31), torch.float64),
    whole((89841, 31), torch.float64),
    whole((16625, 17), torch.float64),
]
# Session 90's wide-mid-run-loads-switch.patch: w, rounds of 5 loads for the
# wide fp64 runs of 33-64 columns too.
WIDE_MID_RUN_LOAD_CASES = [
    whole((50001, 33), torch.float64),
    whole((25001, 41), torch.float64),
    whole((50001, 41), torch.float64),
    whole((25001, 47), torch.float64),
    whole((20001, 55), torch.float64),
    whole((25001, 55), torch.float64),
    whole((10001, 63), torch.float64),
    whole((15001, 63), torch.float64),
    whole((20001, 63), torch.float64),
    whole((20001, 47), torch.float64),
    whole((30001, 63), torch.float64),
]
# Session 91's eight-byte-mid-grid-switch.patch: o, the 8-byte mid-size runs
# of up to 32 columns in min(wave, 512) splits of 4 loads past the held
# partials' cap; q, in a wave of them; e, rounds of 5 loads for 8-byte runs
# of 6-8 rounds of 4.
EIGHT_BYTE_MID_GRID_CASES = [
    whole((50001, 31), torch.float64),
    whole((60001, 31), torch.float64),
    whole((71873, 31), torch.float64),
    whole((85001, 31), torch.float64),
    whole((60001, 31), torch.int64),
    whole((80001, 31), torch.int64),
    whole((4, 10001, 31), torch.float64, (1,)),
    whole((40001, 31), torch.float64),
    whole((89841, 31), torch.float64),
    whole((100001, 31), torch.float64),
    whole((100001, 31), torch.int64),
    whole((30001, 63), torch.float64),
    whole((40001, 47), torch.float64),
    whole((16625, 17), torch.float64),
]
# Session 91's wider-interleaved-switch.patch: x, the wide run up to 128
# columns; y, integers too. The mid-size sums of 65-127 columns and the
# integer ones past 32 that the bands read, long ones where session 70's run
# lost, and 33-64-column runs for what the 2-thread branch costs A.
WIDER_INTERLEAVED_CASES = [
    whole((20001, 66), torch.float32),
    whole((12001, 67), torch.float32),
    whole((9001, 100), torch.float32),
    whole((3001, 66), torch.float32),
    whole((100001, 67), torch.float32),
    whole((300001, 66), torch.float32),
    whole((64, 3001, 66), torch.float32, (1,)),
    whole((12001, 127), torch.float16),
    whole((4001, 127), torch.float16),
    whole((100001, 65), torch.float16),
    whole((100001, 127), torch.float16),
    whole((16001, 66), torch.bfloat16),
    whole((2000, 66), torch.bfloat16),
    whole((20001, 66), torch.int32),
    whole((12001, 67), torch.int32),
    whole((8001, 33), torch.int32),
    whole((20001, 33), torch.int64),
    whole((16384, 63), torch.int8),
    whole((20001, 66), torch.bool),
    whole((8001, 33), torch.int16),
    whole((16384, 63), torch.float32),
    whole((50001, 33), torch.float32),
    whole((25001, 41), torch.float64),
]
# Session 91's wider-interleaved-switch.patch, call 3: where x and y would
# move sums that call 2 did not time: long sums past 64 columns (session 70's
# run lost there), 8-byte columns past 64, long and short integer sums,
# rows on the vector boundary, several spans.
WIDER_RULE_CASES = [
    whole((300001, 127), torch.float16),
    whole((1000001, 100), torch.float16),
    whole((1000001, 66), torch.bfloat16),
    whole((1000001, 127), torch.float32),
    whole((20001, 100), torch.float64),
    whole((100001, 66), torch.float64),
    whole((12001, 127), torch.float64),
    whole((300001, 80), torch.float64),
    whole((300001, 66), torch.int32),
    whole((1000001, 33), torch.int32),
    whole((100001, 100), torch.int32),
    whole((100001, 41), torch.int64),
    whole((300001, 66), torch.int64),
    whole((200001, 63), torch.int8),
    whole((70001, 100), torch.int8),
    whole((300001, 127), torch.uint8),
    whole((100001, 40), torch.int16),
    whole((50001, 100), torch.int16),
    whole((100001, 127), torch.bool),
    whole((20001, 68), torch.float32),
    whole((300001, 128), torch.float32),
    whole((20001, 128), torch.float16),
    whole((300001, 96), torch.float16),
    whole((100001, 72), torch.bfloat16),
    whole((20001, 68), torch.int32),
    whole((20001, 72), torch.int16),
    whole((16, 3001, 100), torch.bfloat16, (1,)),
    whole((8, 20001, 66), torch.float16, (1,)),
    whole((32, 3001, 66), torch.int32, (1,)),
    whole((20001, 127), torch.bfloat16),
    whole((30001, 80), torch.float16),
    whole((5001, 100), torch.float32),
    whole((8001, 66), torch.float16),
    whole((12001, 40), torch.int32),
    whole((8001, 50), torch.int64),
    whole((30001, 48), torch.int16),
    whole((40001, 40), torch.int8),
]
# Session 91's wide-run-threshold-switch.patch: l, the wide run from 2.4
# elements a thread for every type; k, from 1.2. Small sums of 33-128
# columns that the clusters keep.
WIDE_RUN_THRESHOLD_CASES = [
    whole((8001, 66), torch.float16),
    whole((4001, 127), torch.float16),
    whole((8001, 33), torch.int32),
    whole((8001, 33), torch.int16),
    whole((8001, 50), torch.int64),
    whole((3001, 66), torch.float32),
    whole((15001, 33), torch.float16),
    whole((5001, 33), torch.float16),
    whole((10001, 47), torch.bfloat16),
    whole((10001, 66), torch.int8),
    whole((5001, 33), torch.float32),
    whole((2000, 66), torch.bfloat16),
    whole((8001, 100), torch.int8),
    whole((5001, 127), torch.uint8),
]
CASE_SETS = {
    "full_sums": FULL_SUM_CASES,
    "off_boundary": CASES,
    "without_clusters": WITHOUT_CLUSTERS_CASES,
    "narrow_off_boundary": NARROW_OFF_BOUNDARY_CASES,
    "column_a_thread": COLUMN_A_THREAD_CASES,
    "column_a_thread_l2": COLUMN_A_THREAD_L2_CASES,
    "second_limit": SECOND_LIMIT_CASES,
    "column_a_thread_long": COLUMN_A_THREAD_LONG_CASES,
    "narrow_l2_widths": NARROW_L2_WIDTH_CASES,
    "eight_byte_second_limit": EIGHT_BYTE_SECOND_LIMIT_CASES,
    "int32_and_one_byte": INT32_AND_ONE_BYTE_CASES,
    "small_clusters": SMALL_CLUSTER_CASES,
    "wide_interleaved": WIDE_INTERLEAVED_CASES,
    "long_interleaved": LONG_INTERLEAVED_CASES,
    "wide_interleaved_rule": WIDE_INTERLEAVED_RULE_CASES,
    "wide_interleaved_partials": WIDE_INTERLEAVED_PARTIALS_CASES,
    "one_byte_l2_bounds": ONE_BYTE_L2_BOUND_CASES,
    "interleaved_mid": INTERLEAVED_MID_CASES,
    "wide_interleaved_bounds": WIDE_INTERLEAVED_BOUND_CASES,
    "wide_interleaved_moved": WIDE_INTERLEAVED_MOVED_CASES,
    "wide_interleaved_below_bounds": WIDE_INTERLEAVED_BELOW_BOUND_CASES,
    "wide_interleaved_lower_bound": WIDE_INTERLEAVED_LOWER_BOUND_CASES,
    "aligned_interleaved": ALIGNED_INTERLEAVED_CASES,
    "wide_interleaved_new_rule": WIDE_INTERLEAVED_NEW_RULE_CASES,
    "wide_interleaved_new_rule_edges": WIDE_INTERLEAVED_NEW_RULE_EDGE_CASES,
    "narrow_aligned_interleaved": NARROW_ALIGNED_INTERLEAVED_CASES,
    "narrow_second_launch": NARROW_SECOND_LAUNCH_CASES,
    "starts_early": STARTS_EARLY_CASES,
    "eight_byte_cap": EIGHT_BYTE_CAP_CASES,
    "aligned_below_bound": ALIGNED_BELOW_BOUND_CASES,
    "band_second_launch": BAND_SECOND_LAUNCH_CASES,
    "band_finish_eight_byte": BAND_FINISH_EIGHT_BYTE_CASES,
    "band_parameters": BAND_PARAMETER_CASES,
    "interleaved_parameters": INTERLEAVED_PARAMETER_CASES,
    "one_byte_off_boundary": ONE_BYTE_OFF_BOUNDARY_CASES,
    "other_types": OTHER_TYPE_CASES,
    "other_types_larger": OTHER_TYPE_LARGER_CASES,
    "lean_prologue_rows": LEAN_PROLOGUE_ROW_CASES,
    "narrow_integer_interleaved": NARROW_INTEGER_INTERLEAVED_CASES,
    "narrow_integer_crossover": NARROW_INTEGER_CROSSOVER_CASES,
    "small_interleaved": SMALL_INTERLEAVED_CASES,
    "interleaved_parking": INTERLEAVED_PARKING_CASES,
    "small_interleaved_crossover": SMALL_INTERLEAVED_CROSSOVER_CASES,
    "wide_one_byte": WIDE_ONE_BYTE_CASES,
    "aligned_narrow_integers": ALIGNED_NARROW_INTEGER_CASES,
    "one_byte_off_boundary_vectors": ONE_BYTE_OFF_BOUNDARY_VECTOR_CASES,
    "aligned_narrow_small": ALIGNED_NARROW_SMALL_CASES,
    "second_limit_interleaved": SECOND_LIMIT_INTERLEAVED_CASES,
    "wide_parking": WIDE_PARKING_CASES,
    "aligned_narrow_rounds": ALIGNED_NARROW_ROUNDS_CASES,
    "second_limit_rounds": SECOND_LIMIT_ROUNDS_CASES,
    "narrow_off_boundary_run": NARROW_OFF_BOUNDARY_RUN_CASES,
    "few_blocks_run": FEW_BLOCKS_RUN_CASES,
    "uncapped_run_splits": UNCAPPED_RUN_SPLIT_CASES,
    "run_split_count": RUN_SPLIT_COUNT_CASES,
    "full_wave_runs": FULL_WAVE_RUN_CASES,
    "half_wave": HALF_WAVE_CASES,
    "long_run_bounds": LONG_RUN_BOUND_CASES,
    "three_an_sm": THREE_AN_SM_CASES,
    "lean_run": LEAN_RUN_CASES,
    "most_reads": MOST_READS_CASES,
    "eight_byte_interleaved": EIGHT_BYTE_INTERLEAVED_CASES,
    "eight_byte_one_round": EIGHT_BYTE_ONE_ROUND_CASES,
    "eight_byte_pipelined": EIGHT_BYTE_PIPELINED_CASES,
    "eight_byte_half_wave": EIGHT_BYTE_HALF_WAVE_CASES,
    "eight_byte_routes": EIGHT_BYTE_ROUTES_CASES,
    "eight_byte_mid_runs": EIGHT_BYTE_MID_RUN_CASES,
    "wide_and_mid_runs": WIDE_AND_MID_RUN_CASES,
    "wide_rounds_bound": WIDE_ROUNDS_BOUND_CASES,
    "mid_run_round_loads": MID_RUN_ROUND_LOAD_CASES,
    "wide_mid_run_loads": WIDE_MID_RUN_LOAD_CASES,
    "wide_many_splits": WIDE_MANY_SPLIT_CASES,
    "eight_byte_few_clusters": EIGHT_BYTE_FEW_CLUSTER_CASES,
    "eight_byte_cluster_rows": EIGHT_BYTE_CLUSTER_ROW_CASES,
    "narrow_off_boundary_rule": NARROW_OFF_BOUNDARY_RULE_CASES,
    "eight_byte_mid_grid": EIGHT_BYTE_MID_GRID_CASES,
    "wider_interleaved": WIDER_INTERLEAVED_CASES,
    "wider_rule": WIDER_RULE_CASES,
    "wide_run_threshold": WIDE_RUN_THRESHOLD_CASES,
}


def sum_v7_under(variable: str, value: str | None, dims: tuple[int, ...]) -> Callable:
    """sum_v7 over dims with the environment variable set to value (unset for
    None) before each call, so that a CUDA graph captured from it holds the
    launches that value gives (the experiment patches read it at each launch)."""

    def call(x: torch.Tensor) -> torch.Tensor:
        if value is None:
            os.environ.pop(variable, None)
        else:
            os.environ[variable] = value
        return torch.ops.reduce_opt.sum_v7(x, list(dims))

    return call


def launched_kernels(call: Callable, x: torch.Tensor) -> list[str]:
    """The kernels one call launches, in order, as 'name grid block'."""
    call(x)
    torch.cuda.synchronize()
    with tempfile.TemporaryDirectory() as folder:
        kernels = profiled_kernels(lambda: call(x), Path(folder) / "trace.json")
    return [
        f"{short_name(k['name'])} {k['args'].get('grid')} {k['args'].get('block')}" for k in kernels
    ]


def print_routes(cases: list[tuple], variants: list[str], variable: str) -> None:
    """Each case's launched kernels under each variant's letters, a line each."""
    for label, shape, dtype, view_of, dims in cases:
        x = view_of(shape)(random_data(shape, dtype, torch.device("cuda")))
        for letters in variants:
            kernels = launched_kernels(sum_v7_under(variable, letters, dims), x)
            print(f"{dtype_name(dtype)} {label} dim={dims} [{letters}]:", " -> ".join(kernels))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "out", type=Path, nargs="?", help="JSON file for {case: {peer: microseconds}}"
    )
    parser.add_argument(
        "--variants", required=True, help="comma-separated letters, one variant each"
    )
    parser.add_argument("--variable", default="TORCH_REDUCE_ROUTING")
    parser.add_argument("--cases", choices=sorted(CASE_SETS), default="off_boundary")
    parser.add_argument("--routes", action="store_true", help="print the kernels; time nothing")
    args = parser.parse_args()
    if args.routes:
        print_routes(CASE_SETS[args.cases], args.variants.split(","), args.variable)
        return
    if args.out is None:
        parser.error("out is needed unless --routes")
    result = time_cases(
        CASE_SETS[args.cases],
        lambda dims: {
            f"v7 {letters}": sum_v7_under(args.variable, letters, dims)
            for letters in args.variants.split(",")
        },
    )
    args.out.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
