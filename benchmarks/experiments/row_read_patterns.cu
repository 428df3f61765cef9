// Probe, not part of the build: how a block a row reads 16 KB rows fastest
// (benchmarks/NOTES.md, session 45). Do Hopper's bulk asynchronous copies
// (`cp.async.bulk`, the TMA unit's 1-D form) read rows faster than sum_v7's
// 16-byte loads? Which 16-byte load instruction, in which block shape?
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o /tmp/rows benchmarks/experiments/row_read_patterns.cu
//   /tmp/rows
//
// Answers on four H100s (NOTES, session 45): bulk copies are slower in every
// arrangement tried (1.4-8.5% at 128 MiB); the load's cache hints change
// nothing; 512 threads of 2 loads at 4 blocks an SM is the fastest register
// shape, 0.3-0.4% ahead of 256x4 (sum_v7 took it for 16 KB rows).
//
// Until then sum_v7 read 8192x4096 fp32 rows a block a row (256 threads, 4
// loads in flight a thread, 8 blocks an H100 multiprocessor) in ~43.9 us;
// Inductor's Triton kernel (512 threads of 2 loads) in ~43.6. Both keep the bytes in
// flight in registers, so a multiprocessor's share of the traffic is bounded
// by its threads and registers, and every block pays its own ramp and drain.
// A bulk copy puts a whole piece of a row (up to a row) in shared memory on
// one instruction, completing on an mbarrier, so the bytes in flight are
// bounded by shared memory instead, and a warp that owns a ring of pieces
// can keep the next ones in flight while it adds the current one.
//
// Patterns, each checked row by row against a float64 sum before it is timed
// (graph replays over copies that together exceed 4x L2, median of 15):
//  - registers: a block a row, kThreads x kLoads 16-byte loads (v7's 256x4
//    and Inductor's 512x2 shapes), in each load flavor (Load below);
//  - bulk rings: each warp owns whole rows (row w, w + all warps, ...) and a
//    ring of kStages pieces of shared memory; lane 0 keeps the ring's pieces
//    in flight, the warp adds each piece from shared memory as it lands. A
//    grid of one wave is persistent; a grid of a warp a row is not.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "probe.cuh"

namespace {

__device__ __forceinline__ float warp_total(float value) {
  for (int offset = 16; offset > 0; offset /= 2) value += __shfl_xor_sync(~0u, value, offset);
  return value;
}

template <int kThreads>
__device__ __forceinline__ float block_total(float value) {
  __shared__ float warp_sums[32];
  value = warp_total(value);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = value;
  __syncthreads();
  value = threadIdx.x < kThreads / 32 ? warp_sums[threadIdx.x] : 0.0f;
  return warp_total(value);
}

// The 16-byte load's cache hints: sum_v7's (probe.cuh's load_streaming),
// a plain load (L1 allocating, as Triton's default), the non-coherent load
// with L1 allocation, sum_v7's with the 256-byte L2 prefetch, and sum_v7's
// with an L1 evict-first priority (Triton's eviction_policy="evict_first").
enum class Load { kStreaming, kPlain, kNonCoherent, kPrefetch256, kEvictFirstL1 };

const char* load_name(Load load) {
  switch (load) {
    case Load::kStreaming: return "ld.global.nc.L1::no_allocate";
    case Load::kPlain: return "ld.global";
    case Load::kNonCoherent: return "ld.global.nc";
    case Load::kPrefetch256: return "ld.global.nc.L1::no_allocate.L2::256B";
    case Load::kEvictFirstL1: return "ld.global.nc.L1::evict_first";
  }
  return "?";
}

template <Load kLoad>
__device__ __forceinline__ float4 load_vector(const float4* address) {
  if constexpr (kLoad == Load::kStreaming) return load_streaming(address);
  float4 v;
  if constexpr (kLoad == Load::kPlain) {
    asm volatile("ld.global.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(address));
  } else if constexpr (kLoad == Load::kNonCoherent) {
    asm("ld.global.nc.v4.f32 {%0, %1, %2, %3}, [%4];"
        : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
        : "l"(address));
  } else if constexpr (kLoad == Load::kPrefetch256) {
    asm("ld.global.nc.L1::no_allocate.L2::256B.v4.f32 {%0, %1, %2, %3}, [%4];"
        : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
        : "l"(address));
  } else {
    asm("ld.global.nc.L1::evict_first.v4.f32 {%0, %1, %2, %3}, [%4];"
        : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
        : "l"(address));
  }
  return v;
}

// A block a row, all of its loads in one round (the row is kThreads x kLoads
// vectors); kMinBlocks caps the registers as sum_v7's launch bounds do. With
// kBounded, as sum_v7's aligned one-round row kernel (round_sum): the row's
// vector count is a kernel argument, each load's index is clamped to it and
// each add predicated on it; without, every index is a constant offset.
template <int kThreads, int kLoads, int kMinBlocks, Load kLoad, bool kBounded = false>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    register_rows_kernel(const float4* matrix, int row_vectors, float* result) {
  const float4* row = matrix + size_t(blockIdx.x) * (kBounded ? row_vectors : kThreads * kLoads);
  float sum = 0.0f;
  float4 batch[kLoads];
#pragma unroll
  for (int l = 0; l < kLoads; ++l) {
    const int v = l * kThreads + int(threadIdx.x);
    batch[l] = load_vector<kLoad>(row + (kBounded ? min(v, row_vectors - 1) : v));
  }
#pragma unroll
  for (int l = 0; l < kLoads; ++l) {
    if (!kBounded || l * kThreads + int(threadIdx.x) < row_vectors) {
      sum += (batch[l].x + batch[l].y) + (batch[l].z + batch[l].w);
    }
  }
  sum = block_total<kThreads>(sum);
  if (threadIdx.x == 0) result[blockIdx.x] = sum;
}

__device__ __forceinline__ uint32_t shared_address(const void* pointer) {
  return uint32_t(__cvta_generic_to_shared(pointer));
}

__device__ __forceinline__ void barrier_init(uint64_t* barrier) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(barrier)));
}

// Arms `barrier` for `bytes` and copies them from global to shared memory;
// the barrier's phase completes when they have landed.
__device__ __forceinline__ void bulk_copy(void* destination, const void* source, uint32_t bytes,
                                          uint64_t* barrier) {
  asm volatile(
      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n\t"
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%2], [%3], %1, [%0];" ::
          "r"(shared_address(barrier)),
      "r"(bytes), "r"(shared_address(destination)), "l"(source)
      : "memory");
}

__device__ __forceinline__ void barrier_wait(uint64_t* barrier, uint32_t parity) {
  asm volatile(
      "{\n\t.reg .pred done;\n"
      "WAIT:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n\t"
      "@!done bra WAIT;\n\t}" ::"r"(shared_address(barrier)),
      "r"(parity)
      : "memory");
}

// Rows of `pieces_per_row` pieces of `piece_bytes`; each warp owns rows
// warp, warp + warps, ... and a ring of kStages pieces.
template <int kWarps, int kStages>
__global__ void __launch_bounds__(kWarps * 32)
    bulk_rows_kernel(const char* matrix, int rows, int pieces_per_row, int piece_bytes,
                     float* result) {
  extern __shared__ __align__(128) char ring_memory[];
  __shared__ uint64_t landed[kWarps][kStages];
  const int warp_in_block = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int warp = blockIdx.x * kWarps + warp_in_block;
  const int warps = gridDim.x * kWarps;
  const int my_rows = warp < rows ? (rows - warp + warps - 1) / warps : 0;
  const int my_pieces = my_rows * pieces_per_row;
  char* ring = ring_memory + size_t(warp_in_block) * kStages * piece_bytes;
  const size_t row_bytes = size_t(pieces_per_row) * piece_bytes;

  const auto issue = [&](int k) {
    const int row = warp + (k / pieces_per_row) * warps;
    const char* source =
        matrix + size_t(row) * row_bytes + size_t(k % pieces_per_row) * piece_bytes;
    bulk_copy(ring + (k % kStages) * piece_bytes, source, piece_bytes,
              &landed[warp_in_block][k % kStages]);
  };
  if (lane == 0) {
    for (int s = 0; s < kStages; ++s) barrier_init(&landed[warp_in_block][s]);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    for (int k = 0; k < kStages && k < my_pieces; ++k) issue(k);
  }
  __syncwarp();

  const int piece_vectors = piece_bytes / 16;
  float sum = 0.0f;
  for (int k = 0; k < my_pieces; ++k) {
    barrier_wait(&landed[warp_in_block][k % kStages], (k / kStages) & 1);
    const float4* piece = reinterpret_cast<const float4*>(ring + (k % kStages) * piece_bytes);
#pragma unroll 8
    for (int v = lane; v < piece_vectors; v += 32) {
      const float4 x = piece[v];
      sum += (x.x + x.y) + (x.z + x.w);
    }
    // The ring slot is refilled by the async proxy: every lane's reads of it
    // come first.
    __syncwarp();
    if (lane == 0 && k + kStages < my_pieces) {
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      issue(k + kStages);
    }
    if (k % pieces_per_row == pieces_per_row - 1) {
      sum = warp_total(sum);
      if (lane == 0) result[warp + (k / pieces_per_row) * warps] = sum;
      sum = 0.0f;
    }
  }
}

struct Matrix {
  int rows, columns, copies;
  float* device = nullptr;
  std::vector<double> row_sums, row_scales;
  size_t bytes() const { return size_t(rows) * columns * sizeof(float); }
  const char* copy(int c) const { return reinterpret_cast<const char*>(device) + c * bytes(); }
};

Matrix make_matrix(int rows, int columns, size_t l2_bytes, int sms) {
  Matrix m{rows, columns, 0};
  m.copies = int(std::max<size_t>(2, (4 * l2_bytes + m.bytes() - 1) / m.bytes()));
  CHECK(cudaMalloc(&m.device, m.bytes() * m.copies));
  const size_t count = size_t(rows) * columns * m.copies;
  fill_kernel<<<4 * sms, 1024>>>(m.device, count, 12345u);
  CHECK(cudaGetLastError());
  std::vector<float> host(size_t(rows) * columns);
  CHECK(cudaMemcpy(host.data(), m.device, m.bytes(), cudaMemcpyDeviceToHost));
  m.row_sums.assign(rows, 0.0);
  m.row_scales.assign(rows, 0.0);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < columns; ++c) {
      const float value = host[size_t(r) * columns + c];
      m.row_sums[r] += value;
      m.row_scales[r] += std::fabs(value);
    }
  }
  return m;
}

// Checks copy 0's row sums (float32 rounding, not a lost or repeated
// piece), then prints the median graph time of the launch over the copies.
template <typename Launch>
void check_and_time(const Matrix& m, const std::string& what, float* result, Launch launch) {
  CHECK(cudaMemset(result, 0xff, m.rows * sizeof(float)));  // NaN: a row left unwritten fails
  launch(0, cudaStream_t{});
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<float> got(m.rows);
  CHECK(cudaMemcpy(got.data(), result, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (int r = 0; r < m.rows; ++r) {
    if (!(std::fabs(got[r] - m.row_sums[r]) <= 1e-5 * m.row_scales[r])) {
      std::fprintf(stderr, "%s: row %d %.6f != %.6f\n", what.c_str(), r, got[r], m.row_sums[r]);
      std::exit(1);
    }
  }
  const float us =
      graph_us([&](int k, cudaStream_t stream) { launch(k % m.copies, stream); }, 40, 15);
  std::printf("| %dx%d | %s | %.2f | %.0f |\n", m.rows, m.columns, what.c_str(), us,
              m.bytes() / (us * 1e3));
}

template <int kThreads, int kLoads, int kMinBlocks = 1, Load kLoad = Load::kStreaming,
          bool kBounded = false>
void run_register_rows(const Matrix& m, float* result) {
  if (m.columns != kThreads * kLoads * 4) return;
  const auto kernel = register_rows_kernel<kThreads, kLoads, kMinBlocks, kLoad, kBounded>;
  int resident = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, kThreads, 0));
  check_and_time(m,
                 "registers, a block a row, " + std::to_string(kThreads) + "x" +
                     std::to_string(kLoads) + ", " + std::to_string(resident) + " blocks/SM, " +
                     load_name(kLoad) + (kBounded ? ", bounded as sum_v7" : ""),
                 result, [&](int copy, cudaStream_t stream) {
                   kernel<<<m.rows, kThreads, 0, stream>>>(
                       reinterpret_cast<const float4*>(m.copy(copy)), m.columns / 4, result);
                 });
}

// A block a row in 512 threads of 2 loads, 4 blocks an SM (Inductor's
// shape), in each load flavor.
void run_load_flavors(const Matrix& m, float* result) {
  run_register_rows<512, 2, 4, Load::kPlain>(m, result);
  run_register_rows<512, 2, 4, Load::kNonCoherent>(m, result);
  run_register_rows<512, 2, 4, Load::kPrefetch256>(m, result);
  run_register_rows<512, 2, 4, Load::kEvictFirstL1>(m, result);
}

// `one_wave`: the resident blocks of every multiprocessor, persistent;
// otherwise a warp a row.
template <int kWarps, int kStages>
void run_bulk_rows(const Matrix& m, int pieces_per_row, bool one_wave, int sms, float* result) {
  const auto kernel = bulk_rows_kernel<kWarps, kStages>;
  const int piece_bytes = m.columns * 4 / pieces_per_row;
  const int ring_bytes = kWarps * kStages * piece_bytes;
  if (piece_bytes % 16 != 0 || ring_bytes > 227 * 1024) return;
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, ring_bytes));
  int resident = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, kWarps * 32, ring_bytes));
  const int blocks = one_wave ? resident * sms : (m.rows + kWarps - 1) / kWarps;
  check_and_time(m,
                 "bulk, " + std::to_string(kWarps) + " warps x " + std::to_string(kStages) +
                     " pieces of " + std::to_string(piece_bytes) + " B, " +
                     std::to_string(resident) + " blocks/SM, " +
                     (one_wave ? "one wave" : "a warp a row"),
                 result, [&](int copy, cudaStream_t stream) {
                   kernel<<<blocks, kWarps * 32, ring_bytes, stream>>>(
                       m.copy(copy), m.rows, pieces_per_row, piece_bytes, result);
                 });
}

}  // namespace

int main() {
  cudaDeviceProp props{};
  CHECK(cudaGetDeviceProperties(&props, 0));
  const int sms = props.multiProcessorCount;
  std::printf("%s, %d SMs, %d MB L2\n\n| shape | pattern | us | GB/s |\n|---|---|---|---|\n",
              props.name, sms, props.l2CacheSize >> 20);
  for (const auto [rows, columns] :
       {std::pair{8192, 4096}, std::pair{4096, 32000}, std::pair{65536, 4096}}) {
    const Matrix m = make_matrix(rows, columns, props.l2CacheSize, sms);
    float* result;
    CHECK(cudaMalloc(&result, rows * sizeof(float)));
    run_register_rows<256, 4, 8>(m, result);                          // sum_v7 until session 45
    run_register_rows<512, 2, 4>(m, result);                          // Inductor's shape
    run_register_rows<512, 2, 4, Load::kStreaming, true>(m, result);  // ShallowWideBlockARow
    run_register_rows<256, 4, 8, Load::kStreaming, true>(m, result);  // WideBlockARow
    run_register_rows<1024, 1, 2>(m, result);
    run_register_rows<128, 8, 8>(m, result);
    run_load_flavors(m, result);
    const int whole = columns == 4096 ? 1 : 8;  // pieces of 16 KB (16,000 B for 4096x32000)
    run_bulk_rows<1, 1>(m, whole, false, sms, result);
    run_bulk_rows<1, 2>(m, whole, false, sms, result);
    run_bulk_rows<1, 2>(m, whole, true, sms, result);
    run_bulk_rows<2, 3>(m, whole, true, sms, result);
    run_bulk_rows<4, 3>(m, whole, true, sms, result);
    run_bulk_rows<6, 2>(m, whole, true, sms, result);
    run_bulk_rows<12, 1>(m, whole, true, sms, result);
    run_bulk_rows<4, 6>(m, 2 * whole, true, sms, result);
    run_bulk_rows<8, 3>(m, 2 * whole, true, sms, result);
    run_bulk_rows<8, 6>(m, 4 * whole, true, sms, result);
    run_bulk_rows<16, 3>(m, 4 * whole, true, sms, result);
    CHECK(cudaFree(result));
    CHECK(cudaFree(m.device));
  }
  return 0;
}
